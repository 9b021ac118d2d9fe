/**
 * Where parameters come from: the query string as DaneeCloud clients send it (odd forms
 * included), trailing slashes, JSON and urlencoded bodies; duplicates and body limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody } from '../helpers/records.js';

let t: TestDaemon;
let n = 0;
const unique = (prefix: string) => `${prefix}${++n}`;
const json = (body: unknown) => ({ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const form = (body: string) => ({ headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });

beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, 'ana');
});
afterAll(() => t.close());

describe('parameters in the query string', () => {
  it.each([
    ['/api/user?username=ana'],
    ['/api/user/?username=ana'],
    ['/api/user//?username=ana'],
    ['/api/user?&username=ana&'],
    ['/api/user?username=ana&&'],
    ['/api/user?username=ana&username=ana'],
    ['/api/user?username=%61na'],
  ])('reads %s', async (route) => {
    const res = await t.raw('GET', route);
    expect(res.status, res.text).toBe(200);
    expect(res.body.username).toBe('ana');
  });

  it('creates a user from a query with empty pairs (a=1&&b=2)', async () => {
    const username = unique('q');
    const res = await t.raw('POST', `/api/user/create/?username=${username}&&email=${username}%40example.com&&password=password123`);
    expect(res.status, res.text).toBe(201);
    expect(res.body.user).toMatchObject({ username, email: `${username}@example.com` });
  });

  it('decodes percent-encoded UTF-8 and "+" as a space in names', async () => {
    const res = await t.raw('POST', '/api/folders/create?username=ana&folder=caf%C3%A9+menu');
    expect(res.status, res.text).toBe(201);
    expect(res.body.folder.name).toBe('café menu');
  });

  it('stores a decomposed (NFD) name in its composed (NFC) form', async () => {
    const res = await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'Re\u0301sume\u0301' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.folder.name).toBe('R\u00e9sum\u00e9');
  });

  it('answers 400 duplicate_parameter when a key is given twice with two values', async () => {
    expectErrorBody(await t.raw('GET', '/api/user?username=ana&username=bob'), 400, 'duplicate_parameter');
    expectErrorBody(
      await t.raw('POST', '/api/user/create?username=x1&username=x2&email=x@example.com&password=password123'),
      400,
      'duplicate_parameter',
    );
  });

  it('answers 400 missing_parameter for an empty value', async () => {
    expectErrorBody(await t.raw('GET', '/api/user?username='), 400, 'missing_parameter');
    expectErrorBody(await t.raw('GET', '/api/user?username'), 400, 'missing_parameter');
  });

  it('ignores parameters the endpoint does not take', async () => {
    const res = await t.raw('GET', '/api/user?username=ana&color=blue&password=x');
    expect(res.status).toBe(200);
  });
});

describe('parameters in a POST body', () => {
  it('creates a user from a JSON body', async () => {
    const username = unique('j');
    const res = await t.api('POST', '/api/user/create', {}, json({ username, email: `${username}@example.com`, password: 'password123' }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.user.username).toBe(username);
  });

  it('creates a user from an urlencoded body', async () => {
    const username = unique('f');
    const res = await t.api(
      'POST',
      '/api/user/create',
      {},
      form(`username=${username}&email=${username}%40example.com&password=password123`),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.user.username).toBe(username);
  });

  it('merges the query string with the body', async () => {
    const username = unique('m');
    const res = await t.api('POST', '/api/user/create', { username }, json({ email: `${username}@example.com`, password: 'password123' }));
    expect(res.status, res.text).toBe(201);
  });

  it('accepts JSON numbers and booleans as their text', async () => {
    const name = unique('role');
    const res = await t.api('POST', '/api/role/create', {}, json({ name, maxStorage: 5, badge: 'https://example.com/b.png' }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.role.maxStorage).toBe(5);
  });

  it('accepts the same value in the query and the body', async () => {
    const username = unique('s');
    const res = await t.api(
      'POST',
      '/api/user/create',
      { username },
      json({ username, email: `${username}@example.com`, password: 'password123' }),
    );
    expect(res.status, res.text).toBe(201);
  });

  it('answers 400 duplicate_parameter when the query and the body disagree, and creates nothing', async () => {
    const username = unique('d');
    expectErrorBody(
      await t.api(
        'POST',
        '/api/user/create',
        { username },
        json({ username: `${username}x`, email: 'd@example.com', password: 'password123' }),
      ),
      400,
      'duplicate_parameter',
    );
    expectErrorBody(
      await t.api('POST', '/api/user/create', { username }, form(`username=${username}y&email=d%40example.com&password=password123`)),
      400,
      'duplicate_parameter',
    );
    expectErrorBody(
      await t.api(
        'POST',
        '/api/user/create',
        {},
        form(`username=${username}&username=${username}z&email=d%40example.com&password=password123`),
      ),
      400,
    );
    expect((await t.api('GET', '/api/user', { username })).status).toBe(404);
  });

  it.each([
    ['malformed JSON', json('{')],
    ['malformed JSON text', { headers: { 'Content-Type': 'application/json' }, body: '{"username": ' }],
    ['a JSON array', json(['ana'])],
    ['a JSON string', json('ana')],
    ['a nested object', json({ username: { $ne: null }, email: 'a@example.com', password: 'password123' })],
    ['an array value', json({ username: ['a', 'b'], email: 'a@example.com', password: 'password123' })],
    ['an urlencoded array', form('username[]=a&email=a%40example.com&password=password123')],
  ])('answers 400 to %s', async (_what, init) => {
    const res = await t.api('POST', '/api/user/create', {}, init);
    expectErrorBody(res, 400);
  });

  it.each([
    ['JSON', json({ username: 'big', email: 'big@example.com', password: 'x'.repeat(70_000) })],
    ['urlencoded', form(`username=big&email=big%40example.com&password=${'x'.repeat(70_000)}`)],
    ['text', { headers: { 'Content-Type': 'text/plain' }, body: 'x'.repeat(70_000) }],
  ])('answers 413 to a %s body over the limit', async (_what, init) => {
    const res = await t.api('POST', '/api/user/create', {}, init);
    expectErrorBody(res, 413, 'payload_too_large');
    expect((await t.api('GET', '/api/user', { username: 'big' })).status).toBe(404);
  });

  it('answers 400 to a parameter value over 8 KiB in the query', async () => {
    expectErrorBody(await t.api('GET', '/api/user', { username: 'a'.repeat(9000) }), 400);
  });

  it('treats an upload body as content, not parameters', async () => {
    const res = await t.api('POST', '/api/files/upload', { username: 'ana', file: 'data.json' }, json({ username: 'someone-else' }));
    expect(res.status, res.text).toBe(201);
    const back = await t.api('GET', '/api/files/download', { username: 'ana', file: 'data.json' });
    expect(back.text).toBe('{"username":"someone-else"}');
  });
});
