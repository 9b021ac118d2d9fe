/**
 * Parameters that are not valid UTF-8 (issue 10, item 13). Decoders replace bad bytes
 * with U+FFFD (the query string, a body's raw bytes) or keep them as they came (a form
 * body's percent-escapes, a JSON "\ud800" escape); a name made that way would not be the
 * name the client meant. Every such parameter is a 400 and nothing changes on disk.
 * A U+FFFD that the client really sent (EF BF BD) is a character like any other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, nodeRequest, snapshotState, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody } from '../helpers/records.js';

let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, 'ana');
});
afterAll(() => t.close());

const BAD_SEQUENCES: [string, string][] = [
  ['a lone high surrogate (ED A0 80)', '%ED%A0%80'],
  ['a lone low surrogate (ED B0 80)', '%ED%B0%80'],
  ['an overlong "/" (C0 AF)', '%C0%AF'],
  ['an overlong NUL (C0 80)', '%C0%80'],
  ['a three-byte overlong (E0 80 AF)', '%E0%80%AF'],
  ['a byte that never starts UTF-8 (FF)', '%FF'],
  ['a continuation byte alone (80)', '%80'],
  ['a truncated sequence (E2 82)', '%E2%82'],
  ['a code point past U+10FFFF (F4 90 80 80)', '%F4%90%80%80'],
];

async function expectRefusedWithoutChange(send: () => Promise<{ status: number; text: string }>): Promise<void> {
  const before = await snapshotState(t);
  const res = await send();
  expect(res.status, res.text).toBe(400);
  expect(JSON.parse(res.text)).toMatchObject({ code: 'invalid_parameter', error: expect.stringMatching(/UTF-8/) });
  expect(await snapshotState(t)).toEqual(before);
}

describe('in the query string', () => {
  it.each(BAD_SEQUENCES)('answers 400 to %s in a folder name', async (_what, seq) => {
    await expectRefusedWithoutChange(() => t.raw('POST', `/api/folders/create?username=ana&folder=x${seq}y`));
  });

  it('answers 400 to a bad sequence in an upload’s file name', async () => {
    await expectRefusedWithoutChange(() => t.raw('POST', '/api/files/upload?username=ana&file=a%ED%A0%80.txt', { body: 'content' }));
  });

  it('answers 400 to a bad sequence in a parameter the endpoint does not read, and names it', async () => {
    const res = await t.raw('GET', '/api/user?username=ana&note=%FF');
    expectErrorBody(res, 400, 'invalid_parameter');
    expect(res.body.error).toContain('note');
  });

  it('answers 400 to a bad sequence in a parameter name', async () => {
    expectErrorBody(await t.raw('GET', '/api/user?username=ana&n%FFte=1'), 400, 'invalid_parameter');
  });

  it('accepts a U+FFFD the client really sent (EF BF BD), and odd "%" that are no escapes', async () => {
    const res = await t.raw('POST', '/api/folders/create?username=ana&folder=a%EF%BF%BDb%zz%');
    expect(res.status, res.text).toBe(201);
    expect(res.body.folder.name).toBe('a\ufffdb%zz%');
  });

  it('still reads a plain GET', async () => {
    const res = await t.raw('GET', '/api/user?username=ana');
    expect(res.status).toBe(200);
  });
});

describe('in a POST body', () => {
  const form = (body: string | Buffer) => ({
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  const json = (body: string | Buffer) => ({
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });

  it.each(BAD_SEQUENCES)('answers 400 to %s in an urlencoded body', async (_what, seq) => {
    await expectRefusedWithoutChange(() => t.api('POST', '/api/folders/create', {}, form(`username=ana&folder=x${seq}y`)));
  });

  it('answers 400 to raw bytes that are not UTF-8 in an urlencoded body', async () => {
    const body = Buffer.concat([Buffer.from('username=ana&folder=x'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('y')]);
    await expectRefusedWithoutChange(() => t.api('POST', '/api/folders/create', {}, form(body)));
  });

  it.each([
    ['a lone high surrogate escape', '"x\\ud800y"'],
    ['a lone low surrogate escape', '"x\\udc00y"'],
    ['two high surrogates', '"x\\ud800\\ud800y"'],
  ])('answers 400 to %s in a JSON body', async (_what, folder) => {
    await expectRefusedWithoutChange(() => t.api('POST', '/api/folders/create', {}, json(`{"username":"ana","folder":${folder}}`)));
  });

  it('answers 400 to raw bytes that are not UTF-8 in a JSON body', async () => {
    const body = Buffer.concat([Buffer.from('{"username":"ana","folder":"x'), Buffer.from([0xc0, 0xaf]), Buffer.from('y"}')]);
    await expectRefusedWithoutChange(() => t.api('POST', '/api/folders/create', {}, json(body)));
  });

  it('accepts a surrogate pair escape and a real U+FFFD in a JSON body', async () => {
    const res = await t.api('POST', '/api/folders/create', {}, json('{"username":"ana","folder":"\\ud83d\\ude00 \\ufffd"}'));
    expect(res.status, res.text).toBe(201);
    expect(res.body.folder.name).toBe('😀 \ufffd');
  });

  it('still accepts UTF-8 names in urlencoded and JSON bodies', async () => {
    expect((await t.api('POST', '/api/folders/create', {}, form('username=ana&folder=caf%C3%A9'))).status).toBe(201);
    expect((await t.api('POST', '/api/folders/create', {}, json('{"username":"ana","folder":"日本"}'))).status).toBe(201);
  });
});

describe('raw bytes in the request line', () => {
  it('never turns bytes that are not UTF-8 into a name', async () => {
    const before = await snapshotState(t);
    const res = await nodeRequest(t.port, {
      method: 'POST',
      path: Buffer.from([...Buffer.from('/api/folders/create?username=ana&folder=x'), 0xff, 0x79]).toString('latin1'),
      headers: { Host: `127.0.0.1:${t.port}`, 'API-Key': t.key },
    });
    expect(res.status, res.text).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await snapshotState(t)).toEqual(before);
  });
});
