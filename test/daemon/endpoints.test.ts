/**
 * Every endpoint of the shared table: its success case (exact status and record shape,
 * shared/types.ts) and each error status it declares. The table below is checked against
 * shared/endpoints.ts, so an endpoint or status added there without a case here fails.
 */
import net from 'node:net';
import { rm } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, refusesReadOnly, type EndpointId } from '../../shared/endpoints.js';
import { contextOf } from '../../daemon/daemon.js';
import { createLock } from '../../daemon/services/dav-locks.js';
import { decodeQuotedPrintable, readOutbox, resetLink, verifyLink } from '../helpers/mail.js';
import { expectErrorBody, expectFileEntry, expectFolder, expectRole, expectUser } from '../helpers/records.js';
import { api, apiLoose, sessionCookie } from '../helpers/api.js';
import { embeddedRun } from '../helpers/backend.js';
import { createUser, nodeRequest, startTestDaemon, upload, type ApiResponse, type TestDaemon } from '../helpers/daemon.js';

const BADGE = 'https://example.com/badge.png';

/** The token of a share link (`<base>/s/<token>`). */
const tokenOf = (shareUrl: string | null) => new URL(shareUrl ?? 'http://missing/').pathname.split('/')[2];

interface Fx {
  t: TestDaemon;
  /** A daemon whose SMTP server refuses connections. */
  smtpDown: TestDaemon;
  /** A daemon whose storage directory has vanished. */
  noStorage: TestDaemon;
  /** A daemon with NIMBUS_REGISTRATION=open. */
  open: TestDaemon;
  /** A new user of `t` (password "password123"), signed in: the headers a browser of theirs sends. */
  session(): Promise<{ username: string; headers: Record<string, string> }>;
  user(): Promise<string>;
  file(username: string, folder?: string, content?: string): Promise<string>;
  folder(username: string): Promise<string>;
  role(maxStorage?: number): Promise<string>;
  unique(prefix: string): string;
}

interface Case {
  status: number;
  what: string;
  code?: string;
  run(fx: Fx): Promise<ApiResponse>;
  check?(res: ApiResponse, fx: Fx): void | Promise<void>;
  /** Needs an embedded daemon (a storage folder to remove, a key of its own to rotate): not run elsewhere. */
  onDiskOnly?: boolean;
}

const PASSWORD = 'password123';

/** The token of the password-reset mail to `email` in a daemon's outbox (mail goes out just after the answer). */
async function resetToken(t: TestDaemon, email: string): Promise<string | null> {
  for (let i = 0; i < 250; i++) {
    const mail = (await readOutbox(t.dataDir)).find((m) => decodeQuotedPrintable(m).includes(`To: ${email}`));
    const token = mail ? resetLink(mail)?.searchParams.get('token') : null;
    if (token) return token;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return null;
}

const ok = (what: string, status: number, run: Case['run'], check?: Case['check']): Case => ({ status, what, run, check });

/** A PNG of `username`'s (files.thumbnail needs a picture). */
async function png(fx: Fx, username: string): Promise<string> {
  const file = fx.unique('p') + '.png';
  await upload(
    fx.t,
    username,
    file,
    await sharp({ create: { width: 300, height: 150, channels: 3, background: '#36c' } })
      .png()
      .toBuffer(),
  );
  return file;
}
const err = (status: number, what: string, code: string | undefined, run: Case['run']): Case => ({ status, what, code, run });

/** Takes a WebDAV lock (depth infinity) on `path` through the service, as the API has no way to; answers the path. */
async function davLocked(fx: Fx, username: string, path: string): Promise<string> {
  await createLock(contextOf(fx.t.daemon), { username, path, depth: 'infinity', scope: 'exclusive', owner: '', timeoutSeconds: 600 });
  return path;
}

/** Cases that only hold on disk: object mode keeps no versions yet (docs/versions.md). */
const diskOnly = (c: Case): Case => ({ ...c, onDiskOnly: true });

const BADGE_PICTURE = { width: 32, height: 32, channels: 3, background: '#c63' } as const;

const CASES: Record<EndpointId, Case[]> = {
  'user.get': [
    ok(
      'returns the user record',
      200,
      async (fx) => api(fx.t, 'user.get', { username: await fx.user() }),
      (res) => expectUser(res.body),
    ),
    err(400, 'no username', 'missing_parameter', (fx) => apiLoose(fx.t, 'user.get')),
    err(404, 'unknown user', 'user_not_found', (fx) => api(fx.t, 'user.get', { username: 'nobody' })),
  ],
  'user.all': [
    ok(
      'lists users with X-Total-Count',
      200,
      async (fx) => {
        await fx.user();
        return api(fx.t, 'user.all');
      },
      (res) => {
        expect(Array.isArray(res.body)).toBe(true);
        expect(Number(res.headers.get('X-Total-Count'))).toBe(res.body.length);
        res.body.forEach(expectUser);
      },
    ),
    err(400, 'non-numeric limit', 'invalid_parameter', (fx) => apiLoose(fx.t, 'user.all', { limit: 'ten' })),
  ],
  'user.create': [
    ok(
      'creates a user with role "user"',
      201,
      (fx) => api(fx.t, 'user.create', { username: fx.unique('new'), email: 'n@example.com', password: 'password123' }),
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['msg', 'user']);
        expectUser(res.body.user);
        expect(res.body.user).toMatchObject({
          role: 'user',
          emailVerified: false,
          email: 'n@example.com',
          usage: { usedBytes: 0, maxBytes: 128 * 1048576, overQuota: false },
        });
      },
    ),
    err(400, 'no password', 'missing_parameter', (fx) =>
      apiLoose(fx.t, 'user.create', { username: fx.unique('np'), email: 'n@example.com' }),
    ),
    err(400, 'short password', 'invalid_parameter', (fx) =>
      api(fx.t, 'user.create', { username: fx.unique('sp'), email: 'n@example.com', password: 'short' }),
    ),
    err(409, 'existing username', 'user_exists', async (fx) =>
      api(fx.t, 'user.create', { username: await fx.user(), email: 'n@example.com', password: 'password123' }),
    ),
  ],
  'user.delete': [
    ok(
      'deletes the user',
      200,
      async (fx) => api(fx.t, 'user.delete', { username: await fx.user() }),
      (res) => expect(Object.keys(res.body)).toEqual(['msg']),
    ),
    err(400, 'no username', 'missing_parameter', (fx) => apiLoose(fx.t, 'user.delete')),
    err(404, 'unknown user', 'user_not_found', (fx) => api(fx.t, 'user.delete', { username: 'nobody' })),
  ],
  'user.edit': [
    ok(
      'renames and changes the e-mail',
      201,
      async (fx) => {
        const username = await fx.user();
        return api(fx.t, 'user.edit', {
          username,
          newusername: `${username}-2`,
          newemail: 'x@example.org',
          newpassword: 'password456',
        });
      },
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['msg', 'user']);
        expectUser(res.body.user);
        expect(res.body.user.username).toMatch(/-2$/);
        expect(res.body.user.email).toBe('x@example.org');
      },
    ),
    ok(
      'keeps the password when newpassword is left out',
      201,
      async (fx) => api(fx.t, 'user.edit', { username: await fx.user(), newusername: fx.unique('x'), newemail: 'x@example.org' }),
      (res) => expectUser(res.body.user),
    ),
    err(400, 'a new password that is too short', 'invalid_parameter', async (fx) =>
      api(fx.t, 'user.edit', {
        username: await fx.user(),
        newusername: fx.unique('y'),
        newemail: 'y@example.org',
        newpassword: 'short',
      }),
    ),
    err(404, 'unknown user', 'user_not_found', (fx) =>
      api(fx.t, 'user.edit', { username: 'nobody', newusername: 'x', newemail: 'x@example.org', newpassword: 'password456' }),
    ),
    err(409, 'new name taken', 'user_exists', async (fx) =>
      api(fx.t, 'user.edit', {
        username: await fx.user(),
        newusername: await fx.user(),
        newemail: 'x@example.org',
        newpassword: 'password456',
      }),
    ),
    err(429, 'a user’s new address that had its 5 verification mails this hour', 'too_many_requests', async (fx) => {
      const email = `${fx.unique('full')}@example.org`;
      const other = await fx.user();
      await api(fx.t, 'user.edit', { username: other, newusername: other, newemail: email });
      for (let i = 0; i < 5; i++) await api(fx.t, 'user.verify', { username: other });
      const { username, headers } = await fx.session();
      return api(fx.t, 'user.edit', { username, newusername: username, newemail: email, password: PASSWORD }, { key: null, headers });
    }),
  ],
  'user.verify': [
    ok(
      'writes the mail to the outbox',
      200,
      async (fx) => api(fx.t, 'user.verify', { username: await fx.user() }),
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['delivery', 'msg']);
        expect(res.body.delivery).toBe('outbox');
      },
    ),
    err(400, 'no username', 'missing_parameter', (fx) => apiLoose(fx.t, 'user.verify')),
    err(404, 'unknown user', 'user_not_found', (fx) => api(fx.t, 'user.verify', { username: 'nobody' })),
    err(429, 'a 6th mail to one address within the hour', 'too_many_requests', async (fx) => {
      const username = await fx.user();
      for (let i = 0; i < 5; i++) await api(fx.t, 'user.verify', { username });
      return api(fx.t, 'user.verify', { username });
    }),
    err(502, 'the SMTP server is down', 'mail_failed', async (fx) => {
      await createUser(fx.smtpDown, 'mia');
      return api(fx.smtpDown, 'user.verify', { username: 'mia' });
    }),
  ],
  'user.role': [
    ok(
      'gives the user the role',
      201,
      async (fx) => api(fx.t, 'user.role', { username: await fx.user(), name: 'admin' }),
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['msg', 'user']);
        expectUser(res.body.user);
        expect(res.body.user.role).toBe('admin');
        expect(res.body.user.usage.maxBytes).toBe(256 * 1048576);
      },
    ),
    err(400, 'no role name', 'missing_parameter', async (fx) => apiLoose(fx.t, 'user.role', { username: await fx.user() })),
    err(404, 'unknown role', 'role_not_found', async (fx) => api(fx.t, 'user.role', { username: await fx.user(), name: 'ghost' })),
    err(404, 'unknown user', 'user_not_found', (fx) => api(fx.t, 'user.role', { username: 'nobody', name: 'admin' })),
  ],
  'folders.list': [
    ok(
      'lists folders with X-Total-Count',
      200,
      async (fx) => {
        const username = await fx.user();
        await fx.folder(username);
        await fx.folder(username);
        return api(fx.t, 'folders.list', { username });
      },
      (res) => {
        expect(Object.keys(res.body)).toEqual(['folders']);
        expect(res.body.folders).toHaveLength(2);
        res.body.folders.forEach(expectFolder);
        expect(res.headers.get('X-Total-Count')).toBe('2');
      },
    ),
    err(400, 'no username', 'missing_parameter', (fx) => apiLoose(fx.t, 'folders.list')),
    err(404, 'unknown user', 'user_not_found', (fx) => api(fx.t, 'folders.list', { username: 'nobody' })),
  ],
  'folders.files': [
    ok(
      'lists a folder’s files',
      200,
      async (fx) => {
        const username = await fx.user();
        const folder = await fx.folder(username);
        await fx.file(username, folder, 'abc');
        return api(fx.t, 'folders.files', { username, folder });
      },
      (res) => {
        expect(Object.keys(res.body)).toEqual(['files']);
        expect(res.body.files).toHaveLength(1);
        expectFileEntry(res.body.files[0]);
        expect(res.body.files[0]).toMatchObject({ size: 3, shared: false, shareUrl: null, folder: expect.any(String) });
        expect(res.headers.get('X-Total-Count')).toBe('1');
      },
    ),
    err(400, 'no folder', 'missing_parameter', async (fx) => apiLoose(fx.t, 'folders.files', { username: await fx.user() })),
    err(404, 'unknown folder', 'folder_not_found', async (fx) => api(fx.t, 'folders.files', { username: await fx.user(), folder: 'nope' })),
    err(404, 'unknown user', 'user_not_found', (fx) => api(fx.t, 'folders.files', { username: 'nobody', folder: 'x' })),
  ],
  'folders.create': [
    err(423, 'a folder in a WebDAV-locked folder', 'locked', async (fx) => {
      const username = await fx.user();
      const folder = await davLocked(fx, username, await fx.folder(username));
      return api(fx.t, 'folders.create', { username, folder: `${folder}/inner` });
    }),
    ok(
      'creates the folder',
      201,
      async (fx) => api(fx.t, 'folders.create', { username: await fx.user(), folder: 'Photos 2024' }),
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['folder', 'msg']);
        expectFolder(res.body.folder);
        expect(res.body.folder).toMatchObject({ name: 'Photos 2024', fileCount: 0, sizeBytes: 0 });
      },
    ),
    err(400, 'no folder', 'missing_parameter', async (fx) => apiLoose(fx.t, 'folders.create', { username: await fx.user() })),
    err(404, 'unknown user', 'user_not_found', (fx) => api(fx.t, 'folders.create', { username: 'nobody', folder: 'x' })),
    err(409, 'existing folder', 'folder_exists', async (fx) => {
      const username = await fx.user();
      return api(fx.t, 'folders.create', { username, folder: await fx.folder(username) });
    }),
  ],
  'folders.delete': [
    err(423, 'a folder holding a WebDAV-locked file', 'locked', async (fx) => {
      const username = await fx.user();
      const folder = await fx.folder(username);
      await davLocked(fx, username, `${folder}/${await fx.file(username, folder)}`);
      return api(fx.t, 'folders.delete', { username, folder });
    }),
    ok(
      'deletes the folder and its files',
      200,
      async (fx) => {
        const username = await fx.user();
        const folder = await fx.folder(username);
        await fx.file(username, folder);
        return api(fx.t, 'folders.delete', { username, folder });
      },
      (res) => expect(res.body).toEqual({ msg: expect.any(String), trashId: expect.stringMatching(/^[0-9a-f]{32}$/) }),
    ),
    err(400, 'no folder', 'missing_parameter', async (fx) => apiLoose(fx.t, 'folders.delete', { username: await fx.user() })),
    err(404, 'unknown folder', 'folder_not_found', async (fx) =>
      api(fx.t, 'folders.delete', { username: await fx.user(), folder: 'nope' }),
    ),
  ],
  'folders.files.rename': [
    err(423, 'a WebDAV-locked file', 'locked', async (fx) => {
      const username = await fx.user();
      const folder = await fx.folder(username);
      const file = await fx.file(username, folder);
      await davLocked(fx, username, `${folder}/${file}`);
      return api(fx.t, 'folders.files.rename', { username, folder, file, newname: 'renamed.txt' });
    }),
    ok(
      'renames a file in a folder',
      201,
      async (fx) => {
        const username = await fx.user();
        const folder = await fx.folder(username);
        const file = await fx.file(username, folder);
        return api(fx.t, 'folders.files.rename', { username, folder, file, newname: 'renamed.txt' });
      },
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['file', 'msg']);
        expectFileEntry(res.body.file);
        expect(res.body.file.name).toBe('renamed.txt');
        expect(res.body.file.mimeType).toBe('text/plain');
      },
    ),
    err(400, 'no newname', 'missing_parameter', async (fx) =>
      apiLoose(fx.t, 'folders.files.rename', { username: await fx.user(), folder: 'f', file: 'a' }),
    ),
    err(404, 'unknown file', 'file_not_found', async (fx) => {
      const username = await fx.user();
      return api(fx.t, 'folders.files.rename', {
        username,
        folder: await fx.folder(username),
        file: 'nope.txt',
        newname: 'b.txt',
      });
    }),
    err(404, 'unknown folder', 'folder_not_found', async (fx) =>
      api(fx.t, 'folders.files.rename', { username: await fx.user(), folder: 'nope', file: 'a.txt', newname: 'b.txt' }),
    ),
    err(409, 'new name taken', 'file_exists', async (fx) => {
      const username = await fx.user();
      const folder = await fx.folder(username);
      const a = await fx.file(username, folder);
      const b = await fx.file(username, folder);
      return api(fx.t, 'folders.files.rename', { username, folder, file: a, newname: b });
    }),
  ],
  'folders.files.delete': [
    err(423, 'a WebDAV-locked file', 'locked', async (fx) => {
      const username = await fx.user();
      const folder = await fx.folder(username);
      const file = await fx.file(username, folder);
      await davLocked(fx, username, `${folder}/${file}`);
      return api(fx.t, 'folders.files.delete', { username, folder, file });
    }),
    ok(
      'deletes a file in a folder',
      200,
      async (fx) => {
        const username = await fx.user();
        const folder = await fx.folder(username);
        return api(fx.t, 'folders.files.delete', { username, folder, file: await fx.file(username, folder) });
      },
      (res) => expect(res.body).toEqual({ msg: expect.any(String), trashId: expect.stringMatching(/^[0-9a-f]{32}$/) }),
    ),
    err(400, 'no file', 'missing_parameter', async (fx) =>
      apiLoose(fx.t, 'folders.files.delete', { username: await fx.user(), folder: 'f' }),
    ),
    err(404, 'unknown file', 'file_not_found', async (fx) => {
      const username = await fx.user();
      return api(fx.t, 'folders.files.delete', { username, folder: await fx.folder(username), file: 'nope.txt' });
    }),
  ],
  'folders.rename': [
    err(423, 'a WebDAV-locked folder', 'locked', async (fx) => {
      const username = await fx.user();
      const folder = await davLocked(fx, username, await fx.folder(username));
      return api(fx.t, 'folders.rename', { username, folder, newname: 'renamed' });
    }),
    ok(
      'renames a folder with its files',
      201,
      async (fx) => {
        const username = await fx.user();
        const folder = await fx.folder(username);
        await fx.file(username, folder);
        return api(fx.t, 'folders.rename', { username, folder, newname: 'renamed folder' });
      },
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['folder', 'msg']);
        expectFolder(res.body.folder);
        expect(res.body.folder).toMatchObject({ name: 'renamed folder', fileCount: 1 });
      },
    ),
    err(400, 'no newname', 'missing_parameter', async (fx) => apiLoose(fx.t, 'folders.rename', { username: await fx.user(), folder: 'f' })),
    err(404, 'unknown folder', 'folder_not_found', async (fx) =>
      api(fx.t, 'folders.rename', { username: await fx.user(), folder: 'nope', newname: 'b' }),
    ),
    err(409, 'a folder of the new name', 'folder_exists', async (fx) => {
      const username = await fx.user();
      const a = await fx.folder(username);
      return api(fx.t, 'folders.rename', { username, folder: a, newname: await fx.folder(username) });
    }),
  ],
  'folders.move': [
    err(423, 'a move into a WebDAV-locked folder', 'locked', async (fx) => {
      const username = await fx.user();
      const to = await davLocked(fx, username, await fx.folder(username));
      return api(fx.t, 'folders.move', { username, folder: await fx.folder(username), to });
    }),
    ok(
      'moves a folder with its files into another',
      201,
      async (fx) => {
        const username = await fx.user();
        const folder = await fx.folder(username);
        await upload(fx.t, username, 'inside.txt', 'x', { folder });
        return api(fx.t, 'folders.move', { username, folder, to: await fx.folder(username) });
      },
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['folder', 'msg']);
        expectFolder(res.body.folder);
        expect(res.body.folder).toMatchObject({ fileCount: 1 });
      },
    ),
    err(400, 'a target path leaving the tree', 'invalid_parameter', async (fx) =>
      apiLoose(fx.t, 'folders.move', { username: await fx.user(), folder: 'f', to: '../x' }),
    ),
    err(404, 'unknown folder', 'folder_not_found', async (fx) =>
      api(fx.t, 'folders.move', { username: await fx.user(), folder: 'nope', to: '' }),
    ),
    err(409, 'a move into itself', 'conflict', async (fx) => {
      const username = await fx.user();
      const folder = await fx.folder(username);
      return api(fx.t, 'folders.move', { username, folder, to: folder });
    }),
  ],
  'folders.copy': [
    err(423, 'a copy into a WebDAV-locked folder', 'locked', async (fx) => {
      const username = await fx.user();
      const to = await davLocked(fx, username, await fx.folder(username));
      return api(fx.t, 'folders.copy', { username, folder: await fx.folder(username), to });
    }),
    ok(
      'copies a folder with its files into another',
      201,
      async (fx) => {
        const username = await fx.user();
        const folder = await fx.folder(username);
        await upload(fx.t, username, 'inside.txt', 'x', { folder });
        return api(fx.t, 'folders.copy', { username, folder, to: await fx.folder(username) });
      },
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['folder', 'msg']);
        expectFolder(res.body.folder);
        expect(res.body.folder).toMatchObject({ fileCount: 1, sizeBytes: 1 });
      },
    ),
    err(400, 'a target path leaving the tree', 'invalid_parameter', async (fx) =>
      apiLoose(fx.t, 'folders.copy', { username: await fx.user(), folder: 'f', to: '../x' }),
    ),
    err(404, 'unknown folder', 'folder_not_found', async (fx) =>
      api(fx.t, 'folders.copy', { username: await fx.user(), folder: 'nope', to: '' }),
    ),
    err(409, 'a copy into itself', 'conflict', async (fx) => {
      const username = await fx.user();
      const folder = await fx.folder(username);
      return api(fx.t, 'folders.copy', { username, folder, to: folder });
    }),
    err(507, 'a copy past the quota', 'quota_exceeded', async (fx) => {
      const username = await fx.user();
      await api(fx.t, 'user.role', { username, name: await fx.role(1) });
      const folder = await fx.folder(username);
      await fx.file(username, folder, 'x'.repeat(600 * 1024));
      return api(fx.t, 'folders.copy', { username, folder, to: await fx.folder(username) });
    }),
  ],
  'folders.download': [
    ok(
      'streams a folder as a zip attachment',
      200,
      async (fx) => {
        const username = await fx.user();
        const folder = await fx.folder(username);
        await fx.file(username, folder, 'zipped');
        return api(fx.t, 'folders.download', { username, folder });
      },
      (res) => {
        expect(res.headers.get('Content-Type')).toBe('application/zip');
        expect(res.headers.get('Content-Disposition')).toMatch(/^attachment; filename=".+\.zip"/);
        expect(res.text.startsWith('PK')).toBe(true);
      },
    ),
    err(400, 'no username', 'missing_parameter', (fx) => apiLoose(fx.t, 'folders.download')),
    err(404, 'unknown folder', 'folder_not_found', async (fx) =>
      api(fx.t, 'folders.download', { username: await fx.user(), folder: 'nope' }),
    ),
  ],
  'role.get': [
    ok(
      'returns the built-in role',
      200,
      (fx) => api(fx.t, 'role.get', { name: 'user' }),
      (res) => {
        expectRole(res.body);
        expect(res.body).toMatchObject({ name: 'user', maxStorage: 128, builtIn: true });
      },
    ),
    err(400, 'no name', 'missing_parameter', (fx) => apiLoose(fx.t, 'role.get')),
    err(404, 'unknown role', 'role_not_found', (fx) => api(fx.t, 'role.get', { name: 'ghost' })),
  ],
  'role.all': [
    ok(
      'lists roles with X-Total-Count',
      200,
      (fx) => api(fx.t, 'role.all'),
      (res) => {
        expect(Array.isArray(res.body)).toBe(true);
        res.body.forEach(expectRole);
        expect(res.body.map((r: { name: string }) => r.name)).toEqual(expect.arrayContaining(['user', 'admin']));
        expect(Number(res.headers.get('X-Total-Count'))).toBe(res.body.length);
      },
    ),
    err(400, 'negative offset', 'invalid_parameter', (fx) => apiLoose(fx.t, 'role.all', { offset: '-1' })),
  ],
  'role.create': [
    ok(
      'creates a role',
      201,
      (fx) => api(fx.t, 'role.create', { name: fx.unique('gold'), maxStorage: 1024, badge: BADGE }),
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['msg', 'role']);
        expectRole(res.body.role);
        expect(res.body.role).toMatchObject({ maxStorage: 1024, badge: BADGE, builtIn: false });
      },
    ),
    ok(
      'creates a role without a badge (issue 29)',
      201,
      (fx) => api(fx.t, 'role.create', { name: fx.unique('r'), maxStorage: 1 }),
      (res) => expect(res.body.role.badge).toBe(''),
    ),
    err(400, 'a path that is no badge of the daemon', 'invalid_parameter', (fx) =>
      apiLoose(fx.t, 'role.create', { name: fx.unique('r'), maxStorage: '1', badge: '/api/user/all' }),
    ),
    err(409, 'existing role', 'role_exists', (fx) => api(fx.t, 'role.create', { name: 'admin', maxStorage: 1, badge: BADGE })),
  ],
  'role.delete': [
    ok(
      'deletes an unused role',
      200,
      async (fx) => api(fx.t, 'role.delete', { name: await fx.role() }),
      (res) => expect(Object.keys(res.body)).toEqual(['msg']),
    ),
    err(400, 'no name', 'missing_parameter', (fx) => apiLoose(fx.t, 'role.delete')),
    err(404, 'unknown role', 'role_not_found', (fx) => api(fx.t, 'role.delete', { name: 'ghost' })),
    err(409, 'a built-in role', 'role_builtin', (fx) => api(fx.t, 'role.delete', { name: 'user' })),
    err(409, 'a role still assigned', 'role_in_use', async (fx) => {
      const name = await fx.role();
      await api(fx.t, 'user.role', { username: await fx.user(), name });
      return api(fx.t, 'role.delete', { name });
    }),
  ],
  'role.edit': [
    ok(
      'renames a role and sets quota and badge',
      201,
      async (fx) => {
        const name = await fx.role();
        return api(fx.t, 'role.edit', { name, newname: `${name}-x`, maxStorage: -1, badge: 'http://example.com/b.svg' });
      },
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['msg', 'role']);
        expectRole(res.body.role);
        expect(res.body.role).toMatchObject({
          name: expect.stringMatching(/-x$/),
          maxStorage: -1,
          badge: 'http://example.com/b.svg',
          builtIn: false,
        });
      },
    ),
    ok(
      'changes a built-in role’s quota (keeping its name)',
      201,
      (fx) => api(fx.t, 'role.edit', { name: 'admin', newname: 'admin', maxStorage: 256, badge: BADGE }),
      (res) => {
        expect(res.body.role).toMatchObject({ name: 'admin', maxStorage: 256, builtIn: true });
      },
    ),
    err(400, 'no maxStorage', 'missing_parameter', async (fx) =>
      apiLoose(fx.t, 'role.edit', { name: await fx.role(), newname: 'x', badge: BADGE }),
    ),
    err(404, 'unknown role', 'role_not_found', (fx) =>
      api(fx.t, 'role.edit', { name: 'ghost', newname: 'ghost2', maxStorage: 1, badge: BADGE }),
    ),
    err(409, 'renaming a built-in role', 'role_builtin', (fx) =>
      api(fx.t, 'role.edit', { name: 'user', newname: 'member', maxStorage: 1, badge: BADGE }),
    ),
    err(409, 'new name taken', 'role_exists', async (fx) =>
      api(fx.t, 'role.edit', { name: await fx.role(), newname: 'admin', maxStorage: 1, badge: BADGE }),
    ),
  ],
  'role.badge.upload': [
    ok(
      'keeps a PNG and answers its path',
      201,
      async (fx) => api(fx.t, 'role.badge.upload', {}, { body: await sharp({ create: BADGE_PICTURE }).png().toBuffer() }),
      (res) => expect(res.body.badge).toMatch(/^\/badges\/uploaded\/[0-9a-f]{32}\.png$/),
    ),
    err(415, 'text, not a picture', 'unsupported_media_type', (fx) => api(fx.t, 'role.badge.upload', {}, { body: 'hello' })),
    err(400, 'an empty body', 'bad_request', (fx) => api(fx.t, 'role.badge.upload', {}, { body: '' })),
    err(413, 'more than 64 KiB', 'payload_too_large', (fx) => api(fx.t, 'role.badge.upload', {}, { body: Buffer.alloc(64 * 1024 + 1) })),
  ],
  'role.badge.get': [
    ok(
      'serves an uploaded picture',
      200,
      async (fx) => {
        const up = await api(fx.t, 'role.badge.upload', {}, { body: await sharp({ create: BADGE_PICTURE }).webp().toBuffer() });
        return api(fx.t, 'role.badge.get', { file: up.body.badge.split('/').pop()! }, { key: null });
      },
      (res) => expect(res.headers.get('Content-Type')).toBe('image/webp'),
    ),
    err(404, 'no such picture', 'file_not_found', (fx) => api(fx.t, 'role.badge.get', { file: `${'0'.repeat(32)}.png` }, { key: null })),
  ],
  'files.list': [
    ok(
      'lists root files with X-Total-Count',
      200,
      async (fx) => {
        const username = await fx.user();
        await fx.file(username, undefined, 'hello');
        await fx.folder(username);
        return fx.t.api('GET', '/api/files/', { username });
      },
      (res) => {
        expect(Object.keys(res.body)).toEqual(['files']);
        expect(res.body.files).toHaveLength(1);
        expectFileEntry(res.body.files[0]);
        expect(res.body.files[0]).toMatchObject({ folder: null, size: 5 });
        expect(res.headers.get('X-Total-Count')).toBe('1');
      },
    ),
    err(400, 'no username', 'missing_parameter', (fx) => apiLoose(fx.t, 'files.list')),
    err(404, 'unknown user', 'user_not_found', (fx) => api(fx.t, 'files.list', { username: 'nobody' })),
    err(404, 'unknown folder', 'folder_not_found', async (fx) => api(fx.t, 'files.list', { username: await fx.user(), folder: 'nope' })),
  ],
  'files.search': [
    ok(
      'finds files at the root and in folders with X-Total-Count',
      200,
      async (fx) => {
        const username = await fx.user();
        const folder = await fx.folder(username);
        const name = await fx.file(username, folder, 'hello');
        return api(fx.t, 'files.search', { username, q: name.toUpperCase() });
      },
      (res) => {
        expect(Object.keys(res.body)).toEqual(['files']);
        expect(res.body.files).toHaveLength(1);
        expectFileEntry(res.body.files[0]);
        expect(res.body.files[0]).toMatchObject({ folder: expect.any(String), size: 5 });
        expect(res.headers.get('X-Total-Count')).toBe('1');
      },
    ),
    err(400, 'no q', 'missing_parameter', async (fx) => apiLoose(fx.t, 'files.search', { username: await fx.user() })),
    err(400, 'q too long', 'invalid_parameter', async (fx) =>
      apiLoose(fx.t, 'files.search', { username: await fx.user(), q: 'x'.repeat(201) }),
    ),
    err(404, 'unknown user', 'user_not_found', (fx) => api(fx.t, 'files.search', { username: 'nobody', q: 'a' })),
  ],
  'files.delete': [
    err(423, 'a WebDAV-locked file', 'locked', async (fx) => {
      const username = await fx.user();
      const file = await davLocked(fx, username, await fx.file(username));
      return api(fx.t, 'files.delete', { username, file });
    }),
    ok(
      'deletes a root file',
      200,
      async (fx) => {
        const username = await fx.user();
        return api(fx.t, 'files.delete', { username, file: await fx.file(username) });
      },
      (res) => expect(res.body).toEqual({ msg: expect.any(String), trashId: expect.stringMatching(/^[0-9a-f]{32}$/) }),
    ),
    err(400, 'no file', 'missing_parameter', async (fx) => apiLoose(fx.t, 'files.delete', { username: await fx.user() })),
    err(404, 'unknown file', 'file_not_found', async (fx) => api(fx.t, 'files.delete', { username: await fx.user(), file: 'nope.txt' })),
  ],
  'files.rename': [
    err(423, 'a WebDAV-locked file', 'locked', async (fx) => {
      const username = await fx.user();
      const file = await davLocked(fx, username, await fx.file(username));
      return api(fx.t, 'files.rename', { username, file, newname: 'renamed.txt' });
    }),
    ok(
      'renames a root file',
      201,
      async (fx) => {
        const username = await fx.user();
        return api(fx.t, 'files.rename', { username, file: await fx.file(username), newname: 'new name.md' });
      },
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['file', 'msg']);
        expectFileEntry(res.body.file);
        expect(res.body.file).toMatchObject({ name: 'new name.md', folder: null, mimeType: 'text/markdown' });
      },
    ),
    err(400, 'no newname', 'missing_parameter', async (fx) => apiLoose(fx.t, 'files.rename', { username: await fx.user(), file: 'a.txt' })),
    err(404, 'unknown file', 'file_not_found', async (fx) =>
      api(fx.t, 'files.rename', { username: await fx.user(), file: 'nope.txt', newname: 'b.txt' }),
    ),
    err(409, 'new name taken', 'file_exists', async (fx) => {
      const username = await fx.user();
      return api(fx.t, 'files.rename', { username, file: await fx.file(username), newname: await fx.file(username) });
    }),
  ],
  'files.move': [
    err(423, 'a move into a WebDAV-locked folder', 'locked', async (fx) => {
      const username = await fx.user();
      const to = await davLocked(fx, username, await fx.folder(username));
      return api(fx.t, 'files.move', { username, file: await fx.file(username), to });
    }),
    ok(
      'moves a root file into a folder (its share follows)',
      201,
      async (fx) => {
        const username = await fx.user();
        const file = await fx.file(username);
        await api(fx.t, 'files.share', { username, file });
        return api(fx.t, 'files.move', { username, file, to: await fx.folder(username) });
      },
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['file', 'msg']);
        expectFileEntry(res.body.file);
        expect(res.body.file).toMatchObject({ folder: expect.stringMatching(/^d/), shared: true });
      },
    ),
    err(400, 'no file', 'missing_parameter', async (fx) => apiLoose(fx.t, 'files.move', { username: await fx.user() })),
    err(404, 'unknown file', 'file_not_found', async (fx) => {
      const username = await fx.user();
      return api(fx.t, 'files.move', { username, file: 'nope.txt', to: await fx.folder(username) });
    }),
    err(404, 'unknown target folder', 'folder_not_found', async (fx) => {
      const username = await fx.user();
      return api(fx.t, 'files.move', { username, file: await fx.file(username), to: 'nope' });
    }),
    err(409, 'the name taken at the target', 'file_exists', async (fx) => {
      const username = await fx.user();
      const folder = await fx.folder(username);
      const file = await fx.file(username);
      await upload(fx.t, username, file, 'other', { folder });
      return api(fx.t, 'files.move', { username, file, to: folder });
    }),
  ],
  'files.copy': [
    err(423, 'a copy into a WebDAV-locked folder', 'locked', async (fx) => {
      const username = await fx.user();
      const to = await davLocked(fx, username, await fx.folder(username));
      return api(fx.t, 'files.copy', { username, file: await fx.file(username), to });
    }),
    ok(
      'copies a folder’s file to the root as a new, unshared file',
      201,
      async (fx) => {
        const username = await fx.user();
        const folder = await fx.folder(username);
        const file = await fx.file(username, folder);
        await api(fx.t, 'files.share', { username, folder, file });
        return api(fx.t, 'files.copy', { username, folder, file });
      },
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['file', 'msg']);
        expectFileEntry(res.body.file);
        expect(res.body.file).toMatchObject({ folder: null, shared: false, size: 7 });
      },
    ),
    err(400, 'no file', 'missing_parameter', async (fx) => apiLoose(fx.t, 'files.copy', { username: await fx.user() })),
    err(404, 'unknown source folder', 'folder_not_found', async (fx) =>
      api(fx.t, 'files.copy', { username: await fx.user(), folder: 'nope', file: 'a.txt' }),
    ),
    err(409, 'a copy into the folder the file is in', 'file_exists', async (fx) => {
      const username = await fx.user();
      return api(fx.t, 'files.copy', { username, file: await fx.file(username) });
    }),
    err(507, 'a copy past the quota', 'quota_exceeded', async (fx) => {
      const username = await fx.user();
      await api(fx.t, 'user.role', { username, name: await fx.role(1) });
      const file = await fx.file(username, undefined, 'x'.repeat(600 * 1024));
      return api(fx.t, 'files.copy', { username, file, to: await fx.folder(username) });
    }),
  ],
  'files.share': [
    ok(
      'shares with an unguessable link',
      201,
      async (fx) => {
        const username = await fx.user();
        return api(fx.t, 'files.share', { username, file: await fx.file(username) });
      },
      (res, fx) => {
        expect(Object.keys(res.body).sort()).toEqual(['file', 'msg']);
        expectFileEntry(res.body.file);
        expect(res.body.file.shared).toBe(true);
        const url = new URL(res.body.file.shareUrl);
        expect(url.origin).toBe(fx.t.url);
        const token = url.pathname.replace(/^\/s\//, '');
        expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
      },
    ),
    err(400, 'no file', 'missing_parameter', async (fx) => apiLoose(fx.t, 'files.share', { username: await fx.user() })),
    err(404, 'unknown file', 'file_not_found', async (fx) => api(fx.t, 'files.share', { username: await fx.user(), file: 'nope.txt' })),
    err(409, 'already shared', 'already_shared', async (fx) => {
      const username = await fx.user();
      const file = await fx.file(username);
      await api(fx.t, 'files.share', { username, file });
      return api(fx.t, 'files.share', { username, file });
    }),
  ],
  'shares.edit': [
    ok(
      'changes the link’s options and answers the link as its owner sees it',
      200,
      async (fx) => {
        const username = await fx.user();
        const file = await fx.file(username);
        await api(fx.t, 'files.share', { username, file });
        return api(fx.t, 'shares.edit', { username, file, maxDownloads: 3, password: 'open sesame', expires: '2999-01-01' });
      },
      (res) => {
        expect(res.body.share).toMatchObject({
          expiresAt: '2999-01-01T00:00:00.000Z',
          hasPassword: true,
          maxDownloads: 3,
          downloads: 0,
          state: 'active',
        });
        expect(JSON.stringify(res.body)).not.toMatch(/scrypt|sesame/);
      },
    ),
    err(400, 'an expiry already past', 'invalid_parameter', async (fx) => {
      const username = await fx.user();
      const file = await fx.file(username);
      await api(fx.t, 'files.share', { username, file });
      return api(fx.t, 'shares.edit', { username, file, expires: '2000-01-01' });
    }),
    err(404, 'a file that is not shared', 'share_not_found', async (fx) => {
      const username = await fx.user();
      return api(fx.t, 'shares.edit', { username, file: await fx.file(username), maxDownloads: 1 });
    }),
  ],
  'folders.share': [
    ok(
      'shares a folder’s tree by a link',
      201,
      async (fx) => {
        const username = await fx.user();
        return api(fx.t, 'folders.share', { username, folder: await fx.folder(username), maxDownloads: 4 });
      },
      (res, fx) => {
        expect(res.body.share).toMatchObject({ kind: 'folder', file: '', maxDownloads: 4, downloads: 0, state: 'active' });
        expect(new URL(res.body.share.url).origin).toBe(fx.t.url);
      },
    ),
    err(400, 'no folder', 'missing_parameter', async (fx) => apiLoose(fx.t, 'folders.share', { username: await fx.user() })),
    err(404, 'an unknown folder', 'folder_not_found', async (fx) =>
      api(fx.t, 'folders.share', { username: await fx.user(), folder: 'nope' }),
    ),
    err(409, 'a folder shared already', 'already_shared', async (fx) => {
      const username = await fx.user();
      const folder = await fx.folder(username);
      await api(fx.t, 'folders.share', { username, folder });
      return api(fx.t, 'folders.share', { username, folder });
    }),
  ],
  'folders.noshare': [
    ok(
      'revokes a folder’s upload link',
      201,
      async (fx) => {
        const username = await fx.user();
        const folder = await fx.folder(username);
        await api(fx.t, 'folders.share', { username, folder, upload: true });
        return api(fx.t, 'folders.noshare', { username, folder, upload: true });
      },
      (res) => expect(Object.keys(res.body)).toEqual(['msg']),
    ),
    err(400, 'no folder', 'missing_parameter', async (fx) => apiLoose(fx.t, 'folders.noshare', { username: await fx.user() })),
    err(404, 'a folder without a link', 'share_not_found', async (fx) => {
      const username = await fx.user();
      return api(fx.t, 'folders.noshare', { username, folder: await fx.folder(username) });
    }),
  ],
  'files.versions': [
    diskOnly(
      ok(
        'lists what overwrites replaced, newest first',
        200,
        async (fx) => {
          const { username, file } = await versioned(fx);
          return api(fx.t, 'files.versions', { username, file });
        },
        (res) => {
          expect(res.body.versions).toHaveLength(1);
          expect(Object.keys(res.body.versions[0]).sort()).toEqual(['id', 'keptAt', 'modifiedAt', 'size']);
        },
      ),
    ),
    err(400, 'no file', 'missing_parameter', async (fx) => apiLoose(fx.t, 'files.versions', { username: await fx.user() })),
    err(404, 'an unknown file', 'file_not_found', async (fx) =>
      api(fx.t, 'files.versions', { username: await fx.user(), file: 'nope.txt' }),
    ),
  ],
  'files.versions.restore': [
    diskOnly(
      ok(
        'makes a version the file’s content again',
        201,
        async (fx) => {
          const { username, file, id } = await versioned(fx);
          return api(fx.t, 'files.versions.restore', { username, file, id });
        },
        (res) => expect(res.body.file.size).toBe('first'.length),
      ),
    ),
    err(400, 'an id that is no version id', 'invalid_parameter', async (fx) => {
      const username = await fx.user();
      return apiLoose(fx.t, 'files.versions.restore', { username, file: await fx.file(username), id: 'x' });
    }),
    err(404, 'an id of no version', 'version_not_found', async (fx) => {
      const username = await fx.user();
      return api(fx.t, 'files.versions.restore', { username, file: await fx.file(username), id: 'f'.repeat(32) });
    }),
    diskOnly(
      err(423, 'a file locked by WebDAV', 'locked', async (fx) => {
        const { username, file, id } = await versioned(fx);
        await davLocked(fx, username, file);
        return api(fx.t, 'files.versions.restore', { username, file, id });
      }),
    ),
    diskOnly(
      err(507, 'a version past the quota', 'quota_exceeded', async (fx) => {
        const { username, file, id } = await versioned(fx, 'x'.repeat(300 * 1024));
        await api(fx.t, 'user.role', { username, name: await fx.role(0) });
        return api(fx.t, 'files.versions.restore', { username, file, id });
      }),
    ),
  ],
  'files.versions.download': [
    diskOnly(
      ok(
        'answers an earlier version’s bytes',
        200,
        async (fx) => {
          const { username, file, id } = await versioned(fx);
          return api(fx.t, 'files.versions.download', { username, file, id });
        },
        (res) => expect(res.text).toBe('first'),
      ),
    ),
    err(400, 'no id', 'missing_parameter', async (fx) => {
      const username = await fx.user();
      return apiLoose(fx.t, 'files.versions.download', { username, file: await fx.file(username) });
    }),
    diskOnly(
      err(404, 'another file’s version', 'version_not_found', async (fx) => {
        const { username, id } = await versioned(fx);
        return api(fx.t, 'files.versions.download', { username, file: await fx.file(username), id });
      }),
    ),
    diskOnly(
      err(416, 'a range past the end', 'range_not_satisfiable', async (fx) => {
        const { username, file, id } = await versioned(fx);
        return api(fx.t, 'files.versions.download', { username, file, id }, { headers: { Range: 'bytes=50-60' } });
      }),
    ),
  ],
  'shares.list': [
    ok(
      'lists the user’s links with their options',
      200,
      async (fx) => {
        const username = await fx.user();
        await api(fx.t, 'files.share', { username, file: await fx.file(username), maxDownloads: 2 });
        return api(fx.t, 'shares.list', { username });
      },
      (res) => {
        expect(res.body.shares).toHaveLength(1);
        expect(res.body.shares[0]).toMatchObject({ hasPassword: false, maxDownloads: 2, downloads: 0, expiresAt: null, state: 'active' });
      },
    ),
    err(400, 'no username', 'missing_parameter', (fx) => apiLoose(fx.t, 'shares.list', {})),
    err(404, 'an unknown user', 'user_not_found', (fx) => api(fx.t, 'shares.list', { username: 'nobody-at-all' })),
  ],
  'files.noshare': [
    ok(
      'revokes the link',
      201,
      async (fx) => {
        const username = await fx.user();
        const file = await fx.file(username);
        await api(fx.t, 'files.share', { username, file });
        return api(fx.t, 'files.noshare', { username, file });
      },
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['file', 'msg']);
        expectFileEntry(res.body.file);
        expect(res.body.file).toMatchObject({ shared: false, shareUrl: null });
      },
    ),
    err(400, 'no file', 'missing_parameter', async (fx) => apiLoose(fx.t, 'files.noshare', { username: await fx.user() })),
    err(404, 'a file that is not shared', 'share_not_found', async (fx) => {
      const username = await fx.user();
      return api(fx.t, 'files.noshare', { username, file: await fx.file(username) });
    }),
    err(404, 'unknown file', 'file_not_found', async (fx) => api(fx.t, 'files.noshare', { username: await fx.user(), file: 'nope.txt' })),
  ],
  'files.upload': [
    err(423, 'a new file in a WebDAV-locked folder', 'locked', async (fx) => {
      const username = await fx.user();
      const folder = await davLocked(fx, username, await fx.folder(username));
      return api(fx.t, 'files.upload', { username, file: 'in.txt', folder }, { body: 'x' });
    }),
    ok(
      'stores the body as the file',
      201,
      async (fx) => api(fx.t, 'files.upload', { username: await fx.user(), file: 'up.bin' }, { body: 'payload' }),
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['file', 'msg']);
        expectFileEntry(res.body.file);
        expect(res.body.file).toMatchObject({ name: 'up.bin', folder: null, size: 7, mimeType: 'application/octet-stream' });
      },
    ),
    ok(
      'stores into a folder',
      201,
      async (fx) => {
        const username = await fx.user();
        return api(fx.t, 'files.upload', { username, file: 'in.txt', folder: await fx.folder(username) }, { body: 'x' });
      },
      (res) => expect(res.body.file.folder).toEqual(expect.any(String)),
    ),
    err(400, 'no file name', 'missing_parameter', async (fx) =>
      apiLoose(fx.t, 'files.upload', { username: await fx.user() }, { body: 'x' }),
    ),
    err(404, 'unknown user', 'user_not_found', (fx) => api(fx.t, 'files.upload', { username: 'nobody', file: 'a' }, { body: 'x' })),
    err(404, 'unknown folder', 'folder_not_found', async (fx) =>
      api(fx.t, 'files.upload', { username: await fx.user(), file: 'a', folder: 'nope' }, { body: 'x' }),
    ),
    err(409, 'existing file without overwrite', 'file_exists', async (fx) => {
      const username = await fx.user();
      return api(fx.t, 'files.upload', { username, file: await fx.file(username) }, { body: 'x' });
    }),
    err(507, 'over the quota', 'quota_exceeded', async (fx) => {
      const username = await fx.user();
      await api(fx.t, 'user.role', { username, name: await fx.role(0) });
      return api(fx.t, 'files.upload', { username, file: 'big' }, { body: 'x' });
    }),
    err(413, 'a form with over 1 MiB around its file', 'payload_too_large', async (fx) => {
      const form = new FormData();
      form.append('padding', 'p'.repeat(2 * 1024 * 1024));
      form.append('file', new Blob(['x']), 'x.txt');
      return api(fx.t, 'files.upload', { username: await fx.user(), file: 'padded.txt' }, { body: form });
    }),
    err(415, 'a urlencoded body (a form, not a file)', 'unsupported_media_type', async (fx) =>
      api(
        fx.t,
        'files.upload',
        { username: await fx.user(), file: 'form.txt' },
        { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=1' },
      ),
    ),
  ],
  'files.download': [
    ok(
      'sends the bytes as an attachment',
      200,
      async (fx) => {
        const username = await fx.user();
        return api(fx.t, 'files.download', { username, file: await fx.file(username, undefined, 'hello world') });
      },
      (res) => {
        expect(res.text).toBe('hello world');
        expect(res.headers.get('Content-Disposition')).toMatch(/^attachment;/);
        expect(res.headers.get('Content-Type')).toMatch(/^text\/plain/);
      },
    ),
    ok(
      'shows a previewable file inline (inline=true), under a sandboxing CSP',
      200,
      async (fx) => {
        const username = await fx.user();
        return api(fx.t, 'files.download', { username, file: await fx.file(username, undefined, 'hello world'), inline: true });
      },
      (res) => {
        expect(res.text).toBe('hello world');
        expect(res.headers.get('Content-Disposition')).toMatch(/^inline;/);
        expect(res.headers.get('Content-Type')).toBe('text/plain; charset=utf-8');
        expect(res.headers.get('Content-Security-Policy')).toContain('sandbox');
        expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
      },
    ),
    err(400, 'no file', 'missing_parameter', async (fx) => apiLoose(fx.t, 'files.download', { username: await fx.user() })),
    err(400, 'an inline that is not a boolean', 'invalid_parameter', async (fx) => {
      const username = await fx.user();
      return apiLoose(fx.t, 'files.download', { username, file: await fx.file(username), inline: 'yes' });
    }),
    err(404, 'unknown file', 'file_not_found', async (fx) => api(fx.t, 'files.download', { username: await fx.user(), file: 'nope' })),
    err(412, 'an If-Match naming other bytes', 'precondition_failed', async (fx) => {
      const username = await fx.user();
      return api(fx.t, 'files.download', { username, file: await fx.file(username) }, { headers: { 'If-Match': '"other"' } });
    }),
    err(416, 'a range past the end', 'range_not_satisfiable', async (fx) => {
      const username = await fx.user();
      return api(
        fx.t,
        'files.download',
        { username, file: await fx.file(username, undefined, 'abc') },
        { headers: { Range: 'bytes=10-' } },
      );
    }),
  ],
  'files.thumbnail': [
    ok(
      'answers a WebP of the longest edge asked, with an ETag',
      200,
      async (fx) => {
        const username = await fx.user();
        return api(fx.t, 'files.thumbnail', { username, file: await png(fx, username), size: 100 });
      },
      (res) => {
        expect(res.headers.get('Content-Type')).toBe('image/webp');
        // Weak while a file on disk has not settled (thumbnail-conditional.test.ts).
        expect(res.headers.get('ETag')).toMatch(/^(W\/)?"[0-9a-f]{32}"$/);
        expect(res.headers.get('Cache-Control')).toBe('private, no-cache');
      },
    ),
    err(400, 'a size under 64', 'invalid_parameter', async (fx) => {
      const username = await fx.user();
      return apiLoose(fx.t, 'files.thumbnail', { username, file: await png(fx, username), size: '32' });
    }),
    err(404, 'an unknown file', 'file_not_found', async (fx) =>
      apiLoose(fx.t, 'files.thumbnail', { username: await fx.user(), file: 'nope.png' }),
    ),
    err(412, 'an If-Match naming another picture', 'precondition_failed', async (fx) => {
      const username = await fx.user();
      return api(fx.t, 'files.thumbnail', { username, file: await png(fx, username) }, { headers: { 'If-Match': '"other"' } });
    }),
    err(415, 'a text file', 'cannot_preview', async (fx) => {
      const username = await fx.user();
      return apiLoose(fx.t, 'files.thumbnail', { username, file: await fx.file(username) });
    }),
  ],
  'usage.get': [
    ok(
      'answers files, trash and kinds against the quota',
      200,
      async (fx) => {
        const username = await fx.user();
        await fx.file(username, undefined, 'abcd');
        await api(fx.t, 'files.delete', { username, file: await fx.file(username, undefined, 'xy') });
        return api(fx.t, 'usage.get', { username });
      },
      (res) =>
        expect(res.body).toEqual({
          usage: {
            usedBytes: 6,
            maxBytes: 128 * 1048576,
            overQuota: false,
            fileBytes: 4,
            trashBytes: 2,
            versionBytes: 0,
            fileCount: 1,
            byKind: { images: 0, documents: 4, media: 0, other: 0 },
          },
        }),
    ),
    err(400, 'no username', 'missing_parameter', (fx) => apiLoose(fx.t, 'usage.get')),
    err(404, 'unknown user', 'user_not_found', (fx) => api(fx.t, 'usage.get', { username: 'nobody' })),
  ],
  'trash.list': [
    ok(
      'lists deleted items with X-Total-Count',
      200,
      async (fx) => {
        const username = await fx.user();
        await api(fx.t, 'files.delete', { username, file: await fx.file(username) });
        return api(fx.t, 'trash.list', { username });
      },
      (res) => {
        expect(res.headers.get('X-Total-Count')).toBe('1');
        expect(res.body.items).toEqual([
          {
            id: expect.stringMatching(/^[0-9a-f]{32}$/),
            kind: 'file',
            name: expect.any(String),
            folder: null,
            size: 7,
            fileCount: 1,
            deletedAt: expect.any(String),
            purgeAt: expect.any(String),
          },
        ]);
      },
    ),
    err(400, 'no username', 'missing_parameter', (fx) => apiLoose(fx.t, 'trash.list')),
    err(404, 'unknown user', 'user_not_found', (fx) => api(fx.t, 'trash.list', { username: 'nobody' })),
  ],
  'trash.restore': [
    err(423, 'a file back into a WebDAV-locked folder', 'locked', async (fx) => {
      const username = await fx.user();
      const folder = await fx.folder(username);
      const file = await fx.file(username, folder);
      const id = (await api(fx.t, 'folders.files.delete', { username, folder, file })).body.trashId!;
      await davLocked(fx, username, folder);
      return api(fx.t, 'trash.restore', { username, id });
    }),
    ok(
      'puts a file back where it was',
      201,
      async (fx) => {
        const username = await fx.user();
        const folder = await fx.folder(username);
        const file = await fx.file(username, folder);
        const id = (await api(fx.t, 'folders.files.delete', { username, folder, file })).body.trashId!;
        return api(fx.t, 'trash.restore', { username, id });
      },
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['msg', 'restored']);
        expect(res.body.restored).toEqual({ kind: 'file', name: expect.any(String), folder: expect.any(String) });
      },
    ),
    err(400, 'an id that is not one', 'invalid_parameter', async (fx) =>
      apiLoose(fx.t, 'trash.restore', { username: await fx.user(), id: 'nope' }),
    ),
    err(404, 'unknown id', 'trash_item_not_found', async (fx) =>
      api(fx.t, 'trash.restore', { username: await fx.user(), id: '0'.repeat(32) }),
    ),
    err(409, 'the name is taken again', 'file_exists', async (fx) => {
      const username = await fx.user();
      const file = await fx.file(username);
      const id = (await api(fx.t, 'files.delete', { username, file })).body.trashId!;
      await upload(fx.t, username, file, 'new');
      return api(fx.t, 'trash.restore', { username, id });
    }),
  ],
  'trash.delete': [
    ok(
      'deletes one item for good',
      200,
      async (fx) => {
        const username = await fx.user();
        const id = (await api(fx.t, 'files.delete', { username, file: await fx.file(username) })).body.trashId!;
        return api(fx.t, 'trash.delete', { username, id });
      },
      (res) => expect(Object.keys(res.body)).toEqual(['msg']),
    ),
    err(400, 'no id', 'missing_parameter', async (fx) => apiLoose(fx.t, 'trash.delete', { username: await fx.user() })),
    err(404, 'unknown id', 'trash_item_not_found', async (fx) =>
      api(fx.t, 'trash.delete', { username: await fx.user(), id: '0'.repeat(32) }),
    ),
  ],
  'trash.empty': [
    ok(
      'deletes everything in the trash for good',
      200,
      async (fx) => {
        const username = await fx.user();
        await api(fx.t, 'files.delete', { username, file: await fx.file(username) });
        await api(fx.t, 'files.delete', { username, file: await fx.file(username) });
        return api(fx.t, 'trash.empty', { username });
      },
      (res) => expect(res.body).toEqual({ msg: expect.any(String), removed: 2 }),
    ),
    err(400, 'no username', 'missing_parameter', (fx) => apiLoose(fx.t, 'trash.empty')),
    err(404, 'unknown user', 'user_not_found', (fx) => api(fx.t, 'trash.empty', { username: 'nobody' })),
  ],
  'dash.get': [
    ok(
      'reports version, uptime, totals',
      200,
      (fx) => api(fx.t, 'dash.get'),
      (res) => {
        expect(res.body).toMatchObject({
          version: expect.any(String),
          uptime: expect.any(Number),
          users: expect.any(Number),
          storage: { usedBytes: expect.any(Number) },
        });
      },
    ),
  ],
  'dash.rescan': [
    ok(
      'reconciles the index with the disk',
      200,
      (fx) => api(fx.t, 'dash.rescan'),
      (res) => expect(res.body).toMatchObject({ msg: expect.any(String), files: expect.any(Number) }),
    ),
    {
      ...err(503, 'the storage directory is gone', 'storage_unavailable', async (fx) => {
        await rm(fx.noStorage.storageDir, { recursive: true, force: true });
        return api(fx.noStorage, 'dash.rescan');
      }),
      onDiskOnly: true,
    },
  ],
  events: [
    ok(
      'opens an event stream',
      200,
      async (fx) => {
        const abort = new AbortController();
        const res = await fetch(`${fx.t.url}/api/events`, { headers: { 'API-Key': fx.t.key }, signal: abort.signal });
        const reader = res.body!.getReader();
        const first = await reader.read();
        abort.abort();
        await reader.cancel().catch(() => undefined);
        return { status: res.status, headers: res.headers, body: null, text: new TextDecoder().decode(first.value) };
      },
      (res) => {
        expect(res.headers.get('Content-Type')).toMatch(/^text\/event-stream/);
        expect(res.text).toContain(': connected');
      },
    ),
  ],
  'keys.list': [
    ok(
      'lists labels and scopes only',
      200,
      (fx) => api(fx.t, 'keys.list'),
      (res) => {
        expect(Object.keys(res.body)).toEqual(['keys']);
        for (const k of res.body.keys)
          expect(Object.keys(k).sort()).toEqual(['builtIn', 'createdAt', 'dialect', 'label', 'scope', 'username']);
        expect(res.body.keys[0]).toMatchObject({ label: 'admin', scope: 'admin', builtIn: true, dialect: 'nimbus', username: null });
      },
    ),
  ],
  'keys.create': [
    ok(
      'shows the new key once',
      201,
      (fx) => api(fx.t, 'keys.create', { label: fx.unique('ci'), scope: 'read' }),
      (res) => {
        expect(res.body).toMatchObject({
          msg: expect.any(String),
          scope: 'read',
          builtIn: false,
          dialect: 'nimbus',
          key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        });
      },
    ),
    err(400, 'an unknown scope', 'invalid_parameter', (fx) => apiLoose(fx.t, 'keys.create', { label: fx.unique('k'), scope: 'root' })),
    err(400, 'an unknown dialect', 'invalid_parameter', (fx) =>
      apiLoose(fx.t, 'keys.create', { label: fx.unique('k'), scope: 'read', dialect: 'danee' }),
    ),
    err(409, 'an existing label', 'key_exists', async (fx) => {
      const label = fx.unique('dup');
      await api(fx.t, 'keys.create', { label, scope: 'read' });
      return api(fx.t, 'keys.create', { label, scope: 'admin' });
    }),
    // In a session, the current password: a stolen session cannot leave a key behind that outlives it.
    err(401, 'a wrong current password in a session', 'invalid_credentials', async (fx) => {
      const { headers } = await fx.session();
      return api(fx.t, 'keys.create', { label: fx.unique('k'), scope: 'read', password: 'not-the-password' }, { key: null, headers });
    }),
    err(403, 'no password in a session', 'password_required', async (fx) => {
      const { headers } = await fx.session();
      return api(fx.t, 'keys.create', { label: fx.unique('k'), scope: 'read', password: undefined }, { key: null, headers });
    }),
    err(429, 'a sixth try after five wrong passwords for the username', 'too_many_attempts', async (fx) => {
      const { headers } = await fx.session();
      for (let i = 0; i < 5; i++)
        await api(fx.t, 'keys.create', { label: fx.unique('k'), scope: 'read', password: `wrong-${i}-password` }, { key: null, headers });
      const res = await api(fx.t, 'keys.create', { label: fx.unique('k'), scope: 'read', password: PASSWORD }, { key: null, headers });
      expect(Number(res.headers.get('Retry-After'))).toBeGreaterThan(0);
      return res;
    }),
  ],
  'keys.delete': [
    ok(
      'deletes a key',
      200,
      async (fx) => {
        const label = fx.unique('gone');
        await api(fx.t, 'keys.create', { label, scope: 'read' });
        return api(fx.t, 'keys.delete', { label });
      },
      (res) => expect(Object.keys(res.body)).toEqual(['msg']),
    ),
    err(400, 'no label', 'missing_parameter', (fx) => apiLoose(fx.t, 'keys.delete')),
    err(404, 'an unknown label', 'key_not_found', (fx) => api(fx.t, 'keys.delete', { label: 'ghost' })),
    err(409, 'the built-in admin key', 'key_builtin', (fx) => api(fx.t, 'keys.delete', { label: 'admin' })),
  ],
  'keys.rotate': [
    {
      ...ok(
        'replaces the admin key',
        201,
        async (fx) => {
          const res = await api(fx.noStorage, 'keys.rotate');
          if (res.status === 201) fx.noStorage.key = res.body.key;
          return res;
        },
        (res) => expect(res.body).toEqual({ msg: expect.any(String), key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) }),
      ),
      // Only a daemon with a key of its own rotates it: cluster daemons share NIMBUS_API_KEY.
      onDiskOnly: true,
    },
    err(409, 'a key set by NIMBUS_API_KEY', undefined, (fx) => api(fx.t, 'keys.rotate')),
  ],
  'auth.login': [
    ok(
      'signs in and sets an HttpOnly, SameSite=Strict session cookie',
      200,
      async (fx) => api(fx.t, 'auth.login', { username: await fx.user(), password: PASSWORD }, { key: null }),
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['admin', 'user']);
        expectUser(res.body.user);
        expect(res.body.admin).toBe(false);
        const cookie = res.headers.get('Set-Cookie') ?? '';
        expect(cookie).toMatch(/^nimbus_session=[A-Za-z0-9_-]{43}; /);
        expect(cookie).toContain('HttpOnly');
        expect(cookie).toContain('SameSite=Strict');
        expect(cookie).toContain('Path=/');
        expect(cookie).toContain('Max-Age=2592000');
        expect(cookie).not.toContain('Secure');
      },
    ),
    err(400, 'no password', 'missing_parameter', async (fx) => apiLoose(fx.t, 'auth.login', { username: await fx.user() }, { key: null })),
    err(401, 'a wrong password', 'invalid_credentials', async (fx) =>
      api(fx.t, 'auth.login', { username: await fx.user(), password: 'not-the-password' }, { key: null }),
    ),
    err(403, 'a foreign Origin', 'cross_site_request', async (fx) =>
      api(
        fx.t,
        'auth.login',
        { username: await fx.user(), password: PASSWORD },
        { key: null, headers: { Origin: 'https://evil.example' } },
      ),
    ),
    err(429, 'a sixth try after five failures for the username', 'too_many_attempts', async (fx) => {
      const username = await fx.user();
      for (let i = 0; i < 5; i++) await api(fx.t, 'auth.login', { username, password: `wrong-${i}-password` }, { key: null });
      const res = await api(fx.t, 'auth.login', { username, password: PASSWORD }, { key: null });
      expect(Number(res.headers.get('Retry-After'))).toBeGreaterThan(0);
      return res;
    }),
  ],
  'auth.logout': [
    ok(
      'ends the session and clears the cookie',
      200,
      async (fx) => {
        const { headers } = await fx.session();
        const res = await api(fx.t, 'auth.logout', {}, { key: null, headers });
        expect((await api(fx.t, 'auth.me', {}, { key: null, headers })).status).toBe(401);
        return res;
      },
      (res) => {
        expect(Object.keys(res.body)).toEqual(['msg']);
        expect(res.headers.get('Set-Cookie')).toMatch(/^nimbus_session=; .*Max-Age=0/);
      },
    ),
  ],
  'auth.options': [
    ok(
      'says registration is closed and verification not required, by default',
      200,
      (fx) => api(fx.t, 'auth.options', {}, { key: null }),
      (res) => expect(res.body).toEqual({ registration: 'closed', requireVerified: false, mailDelivery: 'outbox' }),
    ),
  ],
  'auth.me': [
    ok(
      'answers the signed-in user',
      200,
      async (fx) => {
        const { username, headers } = await fx.session();
        const res = await api(fx.t, 'auth.me', {}, { key: null, headers });
        expect(res.body.user?.username).toBe(username);
        return res;
      },
      (res) => {
        expectUser(res.body.user);
        expect(res.body.admin).toBe(false);
      },
    ),
    ok(
      'answers no user for the admin key',
      200,
      (fx) => api(fx.t, 'auth.me'),
      (res) => expect(res.body).toEqual({ user: null, admin: true, canWrite: true }),
    ),
  ],
  'auth.password': [
    ok(
      'changes the password',
      200,
      async (fx) => {
        const { username, headers } = await fx.session();
        const res = await api(fx.t, 'auth.password', { password: PASSWORD, newpassword: 'a fresh passphrase' }, { key: null, headers });
        expect((await api(fx.t, 'auth.login', { username, password: 'a fresh passphrase' }, { key: null })).status).toBe(200);
        return res;
      },
      (res) => expect(Object.keys(res.body)).toEqual(['msg']),
    ),
    err(400, 'a common new password', 'weak_password', async (fx) => {
      const { headers } = await fx.session();
      return api(fx.t, 'auth.password', { password: PASSWORD, newpassword: 'password1' }, { key: null, headers });
    }),
    err(401, 'a wrong current password', 'invalid_credentials', async (fx) => {
      const { headers } = await fx.session();
      return api(fx.t, 'auth.password', { password: 'not-the-password', newpassword: 'a fresh passphrase' }, { key: null, headers });
    }),
  ],
  'auth.reset': [
    ok(
      'answers 200 for an unknown user too',
      200,
      (fx) => api(fx.t, 'auth.reset', { username: 'nobody-at-all' }, { key: null }),
      (res) => expect(Object.keys(res.body)).toEqual(['msg']),
    ),
    err(400, 'neither username nor email', 'missing_parameter', (fx) => apiLoose(fx.t, 'auth.reset', {}, { key: null })),
    err(403, 'a foreign Origin', 'cross_site_request', (fx) =>
      api(fx.t, 'auth.reset', { username: 'anyone' }, { key: null, headers: { Origin: 'https://evil.example' } }),
    ),
  ],
  'auth.reset.confirm': [
    ok(
      'sets the password from the mailed token',
      200,
      async (fx) => {
        const username = await fx.user();
        expect((await api(fx.t, 'auth.reset', { username }, { key: null })).status).toBe(200);
        const token = await resetToken(fx.t, `${username}@example.com`);
        expect(token).not.toBeNull();
        const res = await api(fx.t, 'auth.reset.confirm', { token: token!, newpassword: 'reset passphrase' }, { key: null });
        expect((await api(fx.t, 'auth.login', { username, password: 'reset passphrase' }, { key: null })).status).toBe(200);
        return res;
      },
      (res) => expect(Object.keys(res.body)).toEqual(['msg']),
    ),
    err(400, 'an unknown token', 'invalid_token', (fx) =>
      api(
        fx.t,
        'auth.reset.confirm',
        { token: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', newpassword: 'reset passphrase' },
        { key: null },
      ),
    ),
    err(403, 'a foreign Origin', 'cross_site_request', (fx) =>
      api(
        fx.t,
        'auth.reset.confirm',
        { token: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', newpassword: 'reset passphrase' },
        { key: null, headers: { Origin: 'https://evil.example' } },
      ),
    ),
  ],
  'auth.register': [
    ok(
      'creates the account with role "user" and signs in',
      201,
      (fx) =>
        api(fx.open, 'auth.register', { username: fx.unique('reg'), email: 'r@example.com', password: 'my own passphrase' }, { key: null }),
      (res) => {
        expect(Object.keys(res.body).sort()).toEqual(['msg', 'user']);
        expectUser(res.body.user);
        expect(res.body.user).toMatchObject({ role: 'user', emailVerified: false, email: 'r@example.com' });
        expect(sessionCookie(res)).not.toBeNull();
      },
    ),
    err(400, 'a password that is the username', 'weak_password', (fx) => {
      const username = fx.unique('samename');
      return api(fx.open, 'auth.register', { username, email: 'r@example.com', password: username.toUpperCase() }, { key: null });
    }),
    err(403, 'registration closed (the default)', 'registration_closed', (fx) =>
      api(fx.t, 'auth.register', { username: fx.unique('reg'), email: 'r@example.com', password: 'my own passphrase' }, { key: null }),
    ),
    err(409, 'an existing username', 'user_exists', async (fx) => {
      const username = fx.unique('twice');
      await api(fx.open, 'auth.register', { username, email: 'r@example.com', password: 'my own passphrase' }, { key: null });
      return api(fx.open, 'auth.register', { username, email: 'r@example.com', password: 'my own passphrase' }, { key: null });
    }),
    // Last of the daemon's registrations: it uses up this client address's for 15 minutes.
    err(429, 'a 6th registration from one address within 15 minutes', 'too_many_requests', async (fx) => {
      for (;;) {
        const res = await api(
          fx.open,
          'auth.register',
          { username: fx.unique('many'), email: `${fx.unique('many')}@example.com`, password: 'my own passphrase' },
          { key: null },
        );
        if (res.status !== 201) return res;
      }
    }),
  ],
  'auth.sessions': [
    ok(
      'lists the caller’s own sessions',
      200,
      async (fx) => {
        const { headers } = await fx.session();
        return api(fx.t, 'auth.sessions', {}, { key: null, headers });
      },
      (res) => {
        expect(Object.keys(res.body)).toEqual(['sessions']);
        expect(res.body.sessions).toHaveLength(1);
        expect(Object.keys(res.body.sessions[0]).sort()).toEqual(['address', 'createdAt', 'current', 'device', 'id', 'lastUsedAt']);
        expect(res.body.sessions[0]).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{32}$/), current: true });
      },
    ),
  ],
  'auth.sessions.delete': [
    ok(
      'ends one of the caller’s sessions',
      200,
      async (fx) => {
        const { headers } = await fx.session();
        const [session] = (await api(fx.t, 'auth.sessions', {}, { key: null, headers })).body.sessions;
        return api(fx.t, 'auth.sessions.delete', { id: session.id }, { key: null, headers });
      },
      (res) => expect(Object.keys(res.body)).toEqual(['msg']),
    ),
    err(400, 'no id', 'missing_parameter', async (fx) =>
      apiLoose(fx.t, 'auth.sessions.delete', {}, { key: null, headers: (await fx.session()).headers }),
    ),
    err(404, 'an id that is not the caller’s', 'session_not_found', async (fx) =>
      api(fx.t, 'auth.sessions.delete', { id: '0123456789abcdef0123456789abcdef' }, { key: null, headers: (await fx.session()).headers }),
    ),
  ],
  'health.get': [
    ok(
      'says the daemon can serve, without a key',
      200,
      (fx) => api(fx.t, 'health.get', {}, { key: null }),
      (res) => expect(res.body).toEqual({ status: 'ok' }),
    ),
  ],
  openapi: [
    ok(
      'describes the API',
      200,
      (fx) => api(fx.t, 'openapi'),
      (res) => expect(res.body.openapi).toBe('3.1.0'),
    ),
  ],
  'share.download': [
    ok(
      'serves a shared file without a key',
      200,
      async (fx) => {
        const username = await fx.user();
        const file = await fx.file(username, undefined, 'shared bytes');
        const shared = await api(fx.t, 'files.share', { username, file });
        return api(fx.t, 'share.download', { token: tokenOf(shared.body.file.shareUrl) }, { key: null });
      },
      (res) => {
        expect(res.text).toBe('shared bytes');
        expect(res.headers.get('Content-Disposition')).toMatch(/^attachment;/);
      },
    ),
    ok(
      'shows a browser the preview page of a shared image',
      200,
      async (fx) => {
        const username = await fx.user();
        const shared = await api(fx.t, 'files.share', { username, file: await png(fx, username) });
        return api(fx.t, 'share.download', { token: tokenOf(shared.body.file.shareUrl) }, { key: null, headers: { Accept: 'text/html' } });
      },
      (res) => {
        expect(res.headers.get('Content-Type')).toMatch(/^text\/html/);
        expect(res.text).toMatch(/<img src="\/s\/[^"]+\?inline=true"/);
        expect(res.text).toMatch(/href="\/s\/[^"]+\?download=true"/);
      },
    ),
    ok(
      'answers inline=true with the bytes inline',
      200,
      async (fx) => {
        const username = await fx.user();
        const shared = await api(fx.t, 'files.share', { username, file: await fx.file(username, undefined, 'seen') });
        return api(fx.t, 'share.download', { token: tokenOf(shared.body.file.shareUrl), inline: true }, { key: null });
      },
      (res) => {
        expect(res.text).toBe('seen');
        expect(res.headers.get('Content-Disposition')).toMatch(/^inline;/);
      },
    ),
    err(404, 'an unknown token', 'share_not_found', (fx) => api(fx.t, 'share.download', { token: 'A'.repeat(43) }, { key: null })),
    err(412, 'an If-Match naming other bytes', 'precondition_failed', async (fx) => {
      const username = await fx.user();
      const shared = await api(fx.t, 'files.share', { username, file: await fx.file(username) });
      return api(fx.t, 'share.download', { token: tokenOf(shared.body.file.shareUrl) }, { key: null, headers: { 'If-Match': '"other"' } });
    }),
    err(416, 'a range past the end', 'range_not_satisfiable', async (fx) => {
      const username = await fx.user();
      const file = await fx.file(username, undefined, 'abc');
      const shared = await api(fx.t, 'files.share', { username, file });
      return api(fx.t, 'share.download', { token: tokenOf(shared.body.file.shareUrl) }, { key: null, headers: { Range: 'bytes=5-9' } });
    }),
    err(400, 'a `path` in a file’s link', 'invalid_parameter', async (fx) => {
      const username = await fx.user();
      const shared = await api(fx.t, 'files.share', { username, file: await fx.file(username) });
      return api(fx.t, 'share.download', { token: tokenOf(shared.body.file.shareUrl), path: 'x.txt' }, { key: null });
    }),
    err(401, 'a link with a password, opened without it', 'share_password_required', async (fx) => {
      const username = await fx.user();
      const shared = await api(fx.t, 'files.share', { username, file: await fx.file(username), password: 'open sesame' });
      return api(fx.t, 'share.download', { token: tokenOf(shared.body.file.shareUrl) }, { key: null });
    }),
  ],
  'share.upload': [
    ok(
      'puts a file into an upload link’s folder, under a free name',
      201,
      async (fx) => {
        const { token, username, folder } = await dropLink(fx);
        await upload(fx.t, username, 'drop.txt', 'taken', { folder });
        return api(fx.t, 'share.upload', { token, file: 'drop.txt' }, { key: null, body: 'dropped' });
      },
      (res) => expect(res.body).toEqual({ msg: 'File uploaded', name: 'drop (2).txt' }),
    ),
    err(400, 'a name the API refuses', 'invalid_parameter', async (fx) =>
      api(fx.t, 'share.upload', { token: (await dropLink(fx)).token, file: 'a\\b' }, { key: null, body: 'x' }),
    ),
    err(401, 'an upload link with a password, without it', 'share_password_required', async (fx) =>
      api(
        fx.t,
        'share.upload',
        { token: (await dropLink(fx, { password: 'open sesame' })).token, file: 'x.txt' },
        { key: null, body: 'x' },
      ),
    ),
    err(404, 'a folder link (it takes no uploads)', 'share_not_found', async (fx) => {
      const username = await fx.user();
      const shared = await api(fx.t, 'folders.share', { username, folder: await fx.folder(username) });
      return api(fx.t, 'share.upload', { token: tokenOf(shared.body.share.url), file: 'x.txt' }, { key: null, body: 'x' });
    }),
    err(409, 'a name taken a thousand times over', 'file_exists', async (fx) => {
      const { token } = await dropLink(fx);
      return api(fx.t, 'share.upload', { token, file: `${'n'.repeat(250)}.txt` }, { key: null, body: 'x' }).then(async (first) => {
        expect(first.status).toBe(201);
        // 255 bytes already: no room for " (2)".
        return api(fx.t, 'share.upload', { token, file: `${'n'.repeat(250)}.txt` }, { key: null, body: 'x' });
      });
    }),
    err(413, 'a form with over 1 MiB around its file', 'payload_too_large', async (fx) => {
      const form = new FormData();
      form.append('padding', 'p'.repeat(2 * 1024 * 1024));
      form.append('file', new Blob(['x']), 'x.txt');
      return api(fx.t, 'share.upload', { token: (await dropLink(fx)).token }, { key: null, body: form });
    }),
    err(415, 'a urlencoded body (a form, not a file)', 'unsupported_media_type', async (fx) =>
      api(
        fx.t,
        'share.upload',
        { token: (await dropLink(fx)).token, file: 'form.txt' },
        { key: null, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=1' },
      ),
    ),
    err(507, 'past the owner’s quota', 'quota_exceeded', async (fx) => {
      const { token, username } = await dropLink(fx);
      await api(fx.t, 'user.role', { username, name: await fx.role(0) });
      return api(fx.t, 'share.upload', { token, file: 'big.bin' }, { key: null, body: 'x' });
    }),
  ],
  'share.unlock': [
    ok(
      'takes the right password: a cookie for the link’s path and a 303 back to it',
      303,
      async (fx) => {
        const username = await fx.user();
        const shared = await api(fx.t, 'files.share', { username, file: await fx.file(username), password: 'open sesame' });
        const token = tokenOf(shared.body.file.shareUrl);
        return api(fx.t, 'share.unlock', { token, password: 'open sesame' }, { key: null, redirect: 'manual' });
      },
      (res) => {
        const location = res.headers.get('Location')!;
        expect(location).toMatch(/^\/s\/[A-Za-z0-9_-]+$/);
        expect(res.headers.get('Set-Cookie')).toMatch(
          new RegExp(`^nimbus_share=\\d+\\.[A-Za-z0-9_-]+; HttpOnly; SameSite=Lax; Path=${location};`),
        );
      },
    ),
    err(400, 'no password', 'missing_parameter', (fx) =>
      fx.t.raw('POST', `/s/${'A'.repeat(43)}`, { key: null, headers: { 'Content-Type': 'application/json' }, body: '{}' }),
    ),
    err(401, 'a wrong password', 'invalid_credentials', async (fx) => {
      const username = await fx.user();
      const shared = await api(fx.t, 'files.share', { username, file: await fx.file(username), password: 'open sesame' });
      return api(fx.t, 'share.unlock', { token: tokenOf(shared.body.file.shareUrl), password: 'wrong' }, { key: null });
    }),
    err(429, 'a link guessed at too often', 'too_many_attempts', async (fx) => {
      const username = await fx.user();
      const shared = await api(fx.t, 'files.share', { username, file: await fx.file(username), password: 'open sesame' });
      const token = tokenOf(shared.body.file.shareUrl);
      for (let i = 0; i < 5; i++) await api(fx.t, 'share.unlock', { token, password: `wrong ${i}` }, { key: null });
      return api(fx.t, 'share.unlock', { token, password: 'open sesame' }, { key: null });
    }),
  ],
  verify: [
    ok(
      'confirms the address from the mailed link with an HTML page',
      200,
      async (fx) => {
        const username = await fx.user();
        await api(fx.t, 'user.verify', { username });
        const mail = (await readOutbox(fx.t.dataDir)).find((m) => m.includes(`Hello ${username},`))!;
        const link = verifyLink(mail)!;
        return fx.t.raw('GET', `${link.pathname}${link.search}`, { key: null });
      },
      (res) => expect(res.headers.get('Content-Type')).toMatch(/^text\/html/),
    ),
    err(400, 'no token', 'missing_parameter', (fx) => fx.t.raw('GET', '/verify', { key: null })),
  ],
};

// The 404 of /verify is an HTML page, not {error, code}: checked on its own below. The 503 of
// /api/health is `{status: 'unavailable', checks}`, what a balancer reads: test/daemon/health.test.ts.
/** A new user's file replaced once: the user, the file and the id of its one version (content `first`, or `kept`). */
async function versioned(fx: Fx, kept = 'first'): Promise<{ username: string; file: string; id: string }> {
  const username = await fx.user();
  const file = await fx.file(username, undefined, kept);
  await upload(fx.t, username, file, 'second', { overwrite: 'true' });
  const listed = await api(fx.t, 'files.versions', { username, file });
  expect(listed.body.versions, listed.text).toHaveLength(1);
  return { username, file, id: listed.body.versions[0].id };
}

/** A new user's folder with an upload link: its token, the user and the folder. */
async function dropLink(fx: Fx, options: { password?: string } = {}): Promise<{ token: string; username: string; folder: string }> {
  const username = await fx.user();
  const folder = await fx.folder(username);
  const res = await api(fx.t, 'folders.share', { username, folder, upload: true, ...options });
  expect(res.status, res.text).toBe(201);
  return { token: tokenOf(res.body.share.url), username, folder };
}

const HTML_ERRORS: Partial<Record<EndpointId, number[]>> = { verify: [404], 'health.get': [503] };

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('every endpoint of the shared table', () => {
  const fx = {} as Fx;
  let n = 0;
  beforeAll(async () => {
    const [t, smtpDown, noStorage, open] = await Promise.all([
      startTestDaemon(),
      freePort().then((port) => startTestDaemon({ env: { NIMBUS_SMTP_URL: `smtp://127.0.0.1:${port}` } })),
      // Its own key, to rotate: cluster daemons share NIMBUS_API_KEY instead (docs/cluster.md).
      startTestDaemon(embeddedRun ? { apiKey: undefined, env: { NIMBUS_KEYCHAIN: 'off' } } : {}),
      startTestDaemon({ env: { NIMBUS_REGISTRATION: 'open' } }),
    ]);
    Object.assign(fx, {
      t,
      smtpDown,
      noStorage,
      open,
      async session() {
        const username = await fx.user();
        const res = await api(t, 'auth.login', { username, password: PASSWORD }, { key: null });
        const cookie = sessionCookie(res);
        if (res.status !== 200 || !cookie) throw new Error(`signing in ${username}: ${res.status} ${res.text}`);
        // A browser's same-origin POST carries the page's Origin.
        return { username, headers: { Cookie: cookie, Origin: t.url } };
      },
      unique: (prefix: string) => `${prefix}${++n}`,
      async user() {
        const username = fx.unique('u');
        await createUser(t, username);
        return username;
      },
      async file(username: string, folder?: string, content = 'content') {
        const file = fx.unique('f') + '.txt';
        await upload(t, username, file, content, folder ? { folder } : {});
        return file;
      },
      async folder(username: string) {
        const folder = fx.unique('d');
        const res = await api(t, 'folders.create', { username, folder });
        expect(res.status).toBe(201);
        return folder;
      },
      async role(maxStorage = 10) {
        const name = fx.unique('r');
        const res = await api(t, 'role.create', { name, maxStorage, badge: BADGE });
        expect(res.status).toBe(201);
        return name;
      },
    } satisfies Fx);
  });
  afterAll(async () => {
    await Promise.all([fx.t?.close(), fx.smtpDown?.close(), fx.noStorage?.close(), fx.open?.close()]);
  });

  it('has a case for every endpoint’s success status and every error status it declares', () => {
    for (const endpoint of ENDPOINTS) {
      const cases = CASES[endpoint.id];
      expect(cases, endpoint.id).toBeDefined();
      const statuses = new Set([...cases.map((c) => c.status), ...(HTML_ERRORS[endpoint.id] ?? [])]);
      expect(statuses.has(endpoint.success), `${endpoint.id} success`).toBe(true);
      for (const status of endpoint.errors) expect(statuses.has(status), `${endpoint.id} ${status}`).toBe(true);
    }
  });

  for (const endpoint of ENDPOINTS) {
    describe(`${endpoint.method} ${endpoint.path}`, () => {
      // A case the table still counts above, but not registered where the daemon has no storage folder.
      for (const c of (CASES[endpoint.id] ?? []).filter((c) => embeddedRun || !c.onDiskOnly)) {
        const title = c.status < 400 ? `answers ${c.status}: ${c.what}` : `answers ${c.status} for ${c.what}`;
        it(title, async () => {
          const res = await c.run(fx);
          if (c.status >= 400) expectErrorBody(res, c.status, c.code);
          else {
            expect(res.status, res.text).toBe(c.status);
            await c.check?.(res, fx);
          }
        });
      }
    });
  }

  it('answers a used verification link with a 404 page', async () => {
    const res = await fx.t.raw('GET', '/verify?token=AAAAAAAAAAAAAAAAAAAAAAAA', { key: null });
    expect(res.status).toBe(404);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/html/);
  });

  const keyed = ENDPOINTS.filter((e) => e.audience !== 'public');

  it.each(keyed.map((e) => [e.method, e.path.replace('{token}', 'x')]))('answers 401 to %s %s without a key', async (method, path) => {
    expectErrorBody(await fx.t.raw(method, path, { key: null }), 401, 'unauthorized');
  });

  it('answers 401 to every keyed endpoint for a wrong key, by API-Key or Bearer', async () => {
    // Each request comes from its own loopback address so the failure throttle stays out of it.
    let i = 0;
    for (const e of keyed) {
      for (const headers of [{ 'API-Key': 'wrong-key' }, { Authorization: 'Bearer wrong-key' }] as Record<string, string>[]) {
        const res = await nodeRequest(fx.t.port, {
          method: e.method,
          path: e.path,
          headers: { Host: `127.0.0.1:${fx.t.port}`, ...headers },
          localAddress: `127.0.1.${2 + i++}`,
        });
        expect(res.status, `${e.id} ${res.text}`).toBe(401);
        expect(JSON.parse(res.text)).toEqual({ error: 'Wrong API key', code: 'unauthorized' });
      }
    }
  });

  it.each(['Bearer', 'bearer', 'BEARER'])('accepts the key as Authorization: %s <key>', async (scheme) => {
    const res = await api(fx.t, 'user.all', {}, { key: null, headers: { Authorization: `${scheme} ${fx.t.key}` } });
    expect(res.status).toBe(200);
  });

  it('refuses other Authorization schemes', async () => {
    const res = await api(fx.t, 'user.all', {}, { key: null, headers: { Authorization: `Basic ${fx.t.key}` } });
    expectErrorBody(res, 401, 'unauthorized');
  });

  it('answers 403 to a read key on every admin endpoint and lets it read', async () => {
    const created = await api(fx.t, 'keys.create', { label: fx.unique('reader'), scope: 'read' });
    const readKey = created.body.key as string;
    for (const e of ENDPOINTS.filter((x) => x.audience !== 'public' && refusesReadOnly(x))) {
      // keys.rotate is the admin key's own: any other key is refused that first.
      const code = e.audience === 'adminKey' ? 'admin_key_only' : 'insufficient_scope';
      expectErrorBody(await fx.t.raw(e.method, e.path, { key: readKey }), 403, code);
    }
    for (const e of ENDPOINTS.filter(
      (x) => x.audience !== 'public' && !refusesReadOnly(x) && x.method === 'GET' && Object.keys(x.params).length === 0 && !x.raw,
    )) {
      expect((await fx.t.raw(e.method, e.path, { key: readKey })).status, e.id).toBe(200);
    }
  });

  it.each([
    ['GET', '/api/nope'],
    ['POST', '/api/user/create/extra'],
    ['GET', '/nothing.js'],
  ])('answers 404 route_not_found to %s %s', async (method, path) => {
    expectErrorBody(await fx.t.raw(method, path), 404, 'route_not_found');
  });

  it('answers 405 to the wrong method on a known path', async () => {
    expectErrorBody(await fx.t.raw('GET', '/api/user/create'), 405, 'method_not_allowed');
  });

  it('pages list endpoints with limit and offset and keeps X-Total-Count the full count', async () => {
    for (let i = 0; i < 3; i++) await fx.role();
    const all = await api(fx.t, 'role.all');
    const total = all.body.length;
    const page = await api(fx.t, 'role.all', { limit: 2, offset: 1 });
    expect(page.status).toBe(200);
    expect(page.body).toEqual(all.body.slice(1, 3));
    expect(page.headers.get('X-Total-Count')).toBe(String(total));

    const username = await fx.user();
    const names = [];
    for (let i = 0; i < 3; i++) names.push(await fx.file(username));
    const files = await api(fx.t, 'files.list', { username, limit: 1, offset: 2 });
    expect(files.body.files.map((f: { name: string }) => f.name)).toEqual([names.sort()[2]]);
    expect(files.headers.get('X-Total-Count')).toBe('3');
    const past = await api(fx.t, 'user.all', { offset: 100000 });
    expect(past.body).toEqual([]);
    expectErrorBody(await apiLoose(fx.t, 'user.all', { limit: '0' }), 400);
  });
});
