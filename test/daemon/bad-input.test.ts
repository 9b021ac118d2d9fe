/**
 * The bad-input table (issue 2, "Bad input"): every malformed name, e-mail, badge, quota
 * or flag is a 400 with {error, code}, and nothing changes on disk or in the store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, snapshotState, startTestDaemon, upload, type ApiResponse, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody } from '../helpers/records.js';

const BADGE = 'https://example.com/b.png';

const BAD_FILE_NAMES: [string, string][] = [
  ['a slash', 'a/b.txt'],
  ['a leading slash', '/etc'],
  ['a backslash', 'a\\b.txt'],
  ['"."', '.'],
  ['".."', '..'],
  ['a parent path', '../escape.txt'],
  ['a deep parent path', '../../../../tmp/x'],
  ['a NUL byte', 'a\u0000b.txt'],
  ['a control character', 'a\u0001b.txt'],
  ['a newline', 'a\nb.txt'],
  ['DEL', 'a\u007fb'],
  ['a bidi override', 'txt.\u202eexe'],
  ['CON', 'CON'],
  ['nul (any case)', 'nul'],
  ['COM1', 'COM1'],
  ['LPT9 with an extension', 'lpt9.txt'],
  ['con.txt', 'con.txt'],
  ['a trailing dot', 'name.'],
  ['a trailing space', 'name '],
  ['256 bytes', 'x'.repeat(256)],
  ['256 bytes of two-byte characters', 'é'.repeat(128)],
];

const BAD_ACCOUNT_NAMES: [string, string][] = [
  ['a slash', 'a/b'],
  ['a backslash', 'a\\b'],
  ['"."', '.'],
  ['".."', '..'],
  ['a NUL byte', 'a\u0000b'],
  ['a control character', 'a\u0001'],
  ['a space', 'a b'],
  ['non-ASCII letters', 'jürgen'],
  ['65 characters', 'x'.repeat(65)],
  ['CON', 'CON'],
  ['a trailing dot', 'ana.'],
];

const BAD_EMAILS = [
  'no-at-sign',
  'a@b',
  'a b@example.com',
  '@example.com',
  'a@@example.com',
  `${'x'.repeat(250)}@example.com`,
  'ana@example.com\n',
];
const BAD_BADGES = [
  'javascript:alert(1)',
  'ftp://example.com/b.png',
  'data:image/png;base64,AAAA',
  'file:///etc/passwd',
  'not a url',
  '//example.com/b.png',
  `https://example.com/${'x'.repeat(2100)}`,
];
const BAD_MAX_STORAGE = ['abc', '1.5', '-2', '1e3', '0x10', '10MB', ' ', '9999999999', 'Infinity', 'NaN'];

interface BadCase {
  what: string;
  code?: string;
  call(t: TestDaemon): Promise<ApiResponse>;
}

/** A folder is a path since issue 25: `a/b.txt` names a folder inside `a` (test/daemon/tree-addressing.test.ts has the path rules). */
const BAD_FOLDER_NAMES = BAD_FILE_NAMES.filter(([what]) => what !== 'a slash');

function cases(): BadCase[] {
  const list: BadCase[] = [];
  const add = (what: string, call: BadCase['call'], code = 'invalid_parameter') => list.push({ what, call, code });
  for (const [what, name] of BAD_FOLDER_NAMES) {
    add(`folders.create: folder with ${what}`, (t) => t.api('POST', '/api/folders/create', { username: 'ana', folder: name }));
    add(`files.upload: folder with ${what}`, (t) =>
      t.api('POST', '/api/files/upload', { username: 'ana', file: 'ok.txt', folder: name }, { body: 'bytes' }),
    );
    add(`folders.delete: folder with ${what}`, (t) => t.api('POST', '/api/folders/delete', { username: 'ana', folder: name }));
  }
  for (const [what, name] of BAD_FILE_NAMES) {
    add(`files.upload: file with ${what}`, (t) => t.api('POST', '/api/files/upload', { username: 'ana', file: name }, { body: 'bytes' }));
    add(`files.rename: newname with ${what}`, (t) => t.api('POST', '/api/files/rename', { username: 'ana', file: 'a.txt', newname: name }));
    add(`files.rename: file with ${what}`, (t) => t.api('POST', '/api/files/rename', { username: 'ana', file: name, newname: 'b.txt' }));
    add(`folders.files.rename: newname with ${what}`, (t) =>
      t.api('POST', '/api/folders/files/rename', { username: 'ana', folder: 'docs', file: 'in.txt', newname: name }),
    );
    add(`files.delete: file with ${what}`, (t) => t.api('POST', '/api/files/delete', { username: 'ana', file: name }));
    add(`files.share: file with ${what}`, (t) => t.api('POST', '/api/files/share', { username: 'ana', file: name }));
    add(`files.download: file with ${what}`, (t) => t.api('GET', '/api/files/download', { username: 'ana', file: name }));
    add(`files.upload (JSON-free query, raw encoding): file with ${what}`, (t) =>
      t.raw('POST', `/api/files/upload?username=ana&file=${encodeURIComponent(name)}`, { body: 'bytes' }),
    );
  }
  for (const [what, name] of BAD_ACCOUNT_NAMES) {
    add(`user.create: username with ${what}`, (t) =>
      t.api('POST', '/api/user/create', { username: name, email: 'x@example.com', password: 'password123' }),
    );
    add(`user.create (JSON body): username with ${what}`, (t) =>
      t.api(
        'POST',
        '/api/user/create',
        {},
        {
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ username: name, email: 'x@example.com', password: 'password123' }),
        },
      ),
    );
    add(`user.edit: newusername with ${what}`, (t) =>
      t.api('POST', '/api/user/edit', { username: 'ana', newusername: name, newemail: 'ana@example.com', newpassword: 'password123' }),
    );
    add(`role.create: name with ${what}`, (t) => t.api('POST', '/api/role/create', { name, maxStorage: '1', badge: BADGE }));
    add(`role.edit: newname with ${what}`, (t) =>
      t.api('POST', '/api/role/edit', { name: 'silver', newname: name, maxStorage: '1', badge: BADGE }),
    );
    add(`keys.create: label with ${what}`, (t) => t.api('POST', '/api/keys/create', { label: name, scope: 'read' }));
  }
  for (const email of BAD_EMAILS) {
    add(`user.create: e-mail ${JSON.stringify(email.slice(0, 30))}`, (t) =>
      t.api('POST', '/api/user/create', { username: 'newbie', email, password: 'password123' }),
    );
    add(`user.edit: e-mail ${JSON.stringify(email.slice(0, 30))}`, (t) =>
      t.api('POST', '/api/user/edit', { username: 'ana', newusername: 'ana', newemail: email, newpassword: 'password123' }),
    );
  }
  for (const badge of BAD_BADGES) {
    add(`role.create: badge ${badge.slice(0, 30)}`, (t) => t.api('POST', '/api/role/create', { name: 'gold', maxStorage: '1', badge }));
    add(`role.edit: badge ${badge.slice(0, 30)}`, (t) =>
      t.api('POST', '/api/role/edit', { name: 'silver', newname: 'silver', maxStorage: '1', badge }),
    );
  }
  for (const maxStorage of BAD_MAX_STORAGE) {
    add(`role.create: maxStorage ${JSON.stringify(maxStorage)}`, (t) =>
      t.api('POST', '/api/role/create', { name: 'gold', maxStorage, badge: BADGE }),
    );
    add(`role.edit: maxStorage ${JSON.stringify(maxStorage)}`, (t) =>
      t.api('POST', '/api/role/edit', { name: 'silver', newname: 'silver', maxStorage, badge: BADGE }),
    );
  }
  add('user.create: a 7-character password', (t) =>
    t.api('POST', '/api/user/create', { username: 'newbie', email: 'n@example.com', password: 'seven77' }),
  );
  add('user.create: a 1025-character password', (t) =>
    t.api('POST', '/api/user/create', { username: 'newbie', email: 'n@example.com', password: 'p'.repeat(1025) }),
  );
  add('keys.create: scope "root"', (t) => t.api('POST', '/api/keys/create', { label: 'k', scope: 'root' }));
  add('files.upload: overwrite "yes"', (t) =>
    t.api('POST', '/api/files/upload', { username: 'ana', file: 'a.txt', overwrite: 'yes' }, { body: 'new' }),
  );
  add('verify: a token with bad characters', (t) => t.raw('GET', '/verify?token=../../etc/passwd', { key: null }));
  for (const [what, params] of [
    ['user.create: empty username', { username: '', email: 'x@example.com', password: 'password123' }],
    ['folders.create: empty folder', { username: 'ana', folder: '' }],
  ] as const) {
    add(what, (t) => t.api('POST', what.startsWith('user') ? '/api/user/create' : '/api/folders/create', params), 'missing_parameter');
  }
  add(
    'files.upload: empty file name',
    (t) => t.api('POST', '/api/files/upload', { username: 'ana', file: '' }, { body: 'x' }),
    'missing_parameter',
  );
  for (const value of ['abc', '-1', '1.5', '0']) {
    add(`user.all: limit ${value}`, (t) => t.api('GET', '/api/user/all', { limit: value }));
  }
  add('files.list: offset "x"', (t) => t.api('GET', '/api/files', { username: 'ana', offset: 'x' }));
  return list;
}

describe('bad input', () => {
  let t: TestDaemon;
  let before: Awaited<ReturnType<typeof snapshotState>>;
  beforeAll(async () => {
    t = await startTestDaemon();
    await createUser(t, 'ana');
    await upload(t, 'ana', 'a.txt', 'original');
    await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'docs' });
    await upload(t, 'ana', 'in.txt', 'inside', { folder: 'docs' });
    await t.api('POST', '/api/role/create', { name: 'silver', maxStorage: '10', badge: BADGE });
    before = await snapshotState(t);
  });
  afterAll(() => t.close());

  it.each(cases().map((c) => [c.what, c] as const))('answers 400 to %s and changes nothing', async (_what, c) => {
    const res = await c.call(t);
    expectErrorBody(res, 400, c.code);
    expect(await snapshotState(t)).toEqual(before);
  });

  it('still has every file intact afterwards', async () => {
    expect((await t.api('GET', '/api/files/download', { username: 'ana', file: 'a.txt' })).text).toBe('original');
    expect((await t.api('GET', '/api/files/download', { username: 'ana', file: 'in.txt', folder: 'docs' })).text).toBe('inside');
  });
});

describe('values at the edge of the rules', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
  });
  afterAll(() => t.close());

  it.each([
    ['a 255-byte name', 'x'.repeat(251) + '.txt'],
    ['a name of 4-byte characters (252 bytes)', '😀'.repeat(63)],
    ['a leading dot', '.hidden'],
    ['inner spaces and dots', 'my file.v2.tar.gz'],
    ['a reserved word inside a longer name', 'CONSOLE.txt'],
    ['quotes and brackets', "it's [final] (1) & more"],
    ['a percent sign and a plus', '100% + tax.csv'],
  ])('accepts a file name with %s, end to end', async (_what, name) => {
    const username = `edge${Math.abs(name.length)}${name.charCodeAt(1)}`;
    await createUser(t, username);
    const folder = await t.api('POST', '/api/folders/create', { username, folder: name });
    expect(folder.status, folder.text).toBe(201);
    const res = await t.api('POST', '/api/files/upload', { username, file: name, folder: name }, { body: 'ok' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.file).toMatchObject({ name, folder: name });
    const back = await t.api('GET', '/api/files/download', { username, file: name, folder: name });
    expect(back.text).toBe('ok');
    expect(back.headers.get('Content-Disposition')).toMatch(/^attachment;/);
  });

  it('accepts the shortest and longest account names and passwords', async () => {
    for (const username of ['a', 'x'.repeat(64), 'A.b_c-9']) {
      const res = await t.api('POST', '/api/user/create', { username, email: 'e@example.com', password: '12345678' });
      expect(res.status, `${username}: ${res.text}`).toBe(201);
    }
    expect(
      (await t.api('POST', '/api/user/create', { username: 'longpw', email: 'e@example.com', password: 'p'.repeat(1024) })).status,
    ).toBe(201);
  });

  it.each([['-1'], ['0'], ['999999999']])('accepts maxStorage %s', async (maxStorage) => {
    const res = await t.api('POST', '/api/role/create', {
      name: `q${maxStorage.replace('-', 'm')}`,
      maxStorage,
      badge: 'http://example.com/b.png',
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.role.maxStorage).toBe(Number(maxStorage));
  });
});
