/**
 * DaneeCloud's published client library (`daneecloud-api` 2.0.3), unchanged, against a real
 * Nimbus daemon: every method gets the status code it was written for.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const require = createRequire(import.meta.url);

interface AxiosLike {
  interceptors: { request: { use(fn: (config: { url?: string; adapter?: unknown }) => unknown): void } };
}
type Reply = { code: number; data: unknown };
interface Cloud {
  getUser(u: string): Promise<Reply>;
  getUsers(): Promise<Reply>;
  createUser(u: string, e: string, p: string): Promise<Reply>;
  deleteUser(u: string): Promise<Reply>;
  editUser(u: string, nu: string, ne: string, np: string): Promise<Reply>;
  verifyUser(u: string): Promise<Reply>;
  changeUserRole(u: string, r: string): Promise<Reply>;
  getFiles(u: string): Promise<Reply>;
  deleteFile(u: string, f: string): Promise<Reply>;
  renameFile(u: string, f: string, n: string): Promise<Reply>;
  shareFile(u: string, f: string): Promise<Reply>;
  disableFileSharing(u: string, f: string): Promise<Reply>;
  getRole(r: string): Promise<Reply>;
  getRoles(): Promise<Reply>;
  createRole(r: string, max: number, badge: string): Promise<Reply>;
  deleteRole(r: string): Promise<Reply>;
  editRole(r: string, nr: string, max: number, badge: string): Promise<Reply>;
  getDashInfo(): Promise<Reply>;
  getFolders(u: string): Promise<Reply>;
  getFilesFromFolder(u: string, f: string): Promise<Reply>;
  createFolder(u: string, f: string): Promise<Reply>;
  deleteFolder(u: string, f: string): Promise<Reply>;
  renameFileFolder(u: string, folder: string, f: string, n: string): Promise<Reply>;
}

let t: TestDaemon;
let cloud: Cloud;
let wrongKey: Cloud;

beforeAll(async () => {
  t = await startTestDaemon();
  const axios = require('axios') as AxiosLike;
  // The library checks the npm registry for a newer version of itself when loaded; answer
  // that one call here so the test does not depend on the network.
  axios.interceptors.request.use((config) => {
    if (config.url?.startsWith('https://registry.npmjs.org/')) {
      config.adapter = async () => ({ data: { 'dist-tags': { latest: '2.0.3' } }, status: 200, statusText: 'OK', headers: {}, config });
    }
    return config;
  });
  // Its folder methods use `axios` and `logger` without requiring them (a bug in the library):
  // give them the globals they expect.
  (globalThis as { axios?: unknown }).axios = axios;
  (globalThis as { logger?: unknown }).logger = require('daneecloud-api/handlers/logger');
  const { Cloud: CloudClass } = require('daneecloud-api') as { Cloud: new (o: { cloudUrl: string; apiKey: string }) => Cloud };
  cloud = new CloudClass({ cloudUrl: t.url, apiKey: t.key });
  wrongKey = new CloudClass({ cloudUrl: t.url, apiKey: 'not-the-key-not-the-key' });
});
afterAll(async () => {
  delete (globalThis as { axios?: unknown }).axios;
  delete (globalThis as { logger?: unknown }).logger;
  await t.close();
});

describe('daneecloud-api against Nimbus', () => {
  it('users: create, get, list, edit, verify, change role, delete', async () => {
    expect((await cloud.createUser('dana', 'dana@example.com', 'password1')).code).toBe(200);
    expect((await cloud.createUser('dana', 'dana@example.com', 'password1')).code).toBe(409);
    const got = await cloud.getUser('dana');
    expect(got.code).toBe(200);
    expect(got.data).toMatchObject({ username: 'dana', role: 'user' });
    expect((await cloud.getUser('nobody')).code).toBe(404);
    expect(((await cloud.getUsers()).data as unknown[]).length).toBe(1);
    expect((await cloud.editUser('dana', 'dana2', 'dana2@example.com', 'password2')).code).toBe(200);
    expect((await cloud.editUser('nobody', 'x', 'x@example.com', 'password2')).code).toBe(404);
    expect((await cloud.verifyUser('dana2')).code).toBe(200);
    expect((await cloud.verifyUser('nobody')).code).toBe(404);
    expect((await cloud.changeUserRole('dana2', 'admin')).code).toBe(201);
    expect((await cloud.changeUserRole('dana2', 'no-such-role')).code).toBe(404);
    expect((await cloud.deleteUser('dana2')).code).toBe(200);
    expect((await cloud.deleteUser('dana2')).code).toBe(404);
  });

  it('roles: create, get, list, edit, delete, and the built-ins are protected', async () => {
    expect((await cloud.createRole('pro', 1024, 'https://example.com/pro.png')).code).toBe(201);
    expect((await cloud.createRole('pro', 1024, 'https://example.com/pro.png')).code).toBe(409);
    expect((await cloud.getRole('pro')).data).toMatchObject({ name: 'pro', maxStorage: 1024 });
    expect((await cloud.getRole('nope')).code).toBe(404);
    expect(((await cloud.getRoles()).data as unknown[]).length).toBe(3);
    expect((await cloud.editRole('pro', 'pro2', 2048, 'https://example.com/pro2.png')).code).toBe(201);
    expect((await cloud.editRole('user', 'renamed', 1, 'https://example.com/u.png')).code).toBe(409);
    expect((await cloud.editRole('nope', 'x', 1, 'https://example.com/u.png')).code).toBe(404);
    expect((await cloud.deleteRole('pro2')).code).toBe(200);
    expect((await cloud.deleteRole('pro2')).code).toBe(404);
  });

  it('files at the root: list, rename, share, unshare, delete', async () => {
    await cloud.createUser('fay', 'fay@example.com', 'password1');
    await t.api('POST', '/api/files/upload', { username: 'fay', file: 'a.txt' }, { body: 'hello' });
    expect((await cloud.getFiles('fay')).code).toBe(200);
    expect((await cloud.getFiles('nobody')).code).toBe(404);
    expect((await cloud.renameFile('fay', 'a.txt', 'b.txt')).code).toBe(201);
    expect((await cloud.renameFile('fay', 'a.txt', 'c.txt')).code).toBe(404);
    expect((await cloud.shareFile('fay', 'b.txt')).code).toBe(201);
    expect((await cloud.shareFile('fay', 'b.txt')).code).toBe(409);
    expect((await cloud.disableFileSharing('fay', 'b.txt')).code).toBe(201);
    expect((await cloud.disableFileSharing('fay', 'b.txt')).code).toBe(404);
    expect((await cloud.deleteFile('fay', 'b.txt')).code).toBe(200);
    // The library reports a 404 from deleteFile as code 200 (its bug); the body tells.
    expect((await cloud.deleteFile('fay', 'b.txt')).data).toEqual({ error: 'File not found', code: 'file_not_found' });
  });

  it('folders: list, create, list files, rename a file, delete', async () => {
    await cloud.createUser('gus', 'gus@example.com', 'password1');
    expect((await cloud.createFolder('gus', 'docs')).code).toBe(201);
    expect((await cloud.createFolder('gus', 'docs')).code).toBe(409);
    expect((await cloud.getFolders('gus')).code).toBe(200);
    await t.api('POST', '/api/files/upload', { username: 'gus', folder: 'docs', file: 'x.txt' }, { body: 'x' });
    const files = await cloud.getFilesFromFolder('gus', 'docs');
    expect(files.code).toBe(200);
    expect(files.data).toMatchObject({ files: [{ name: 'x.txt', folder: 'docs' }] });
    expect((await cloud.getFilesFromFolder('gus', 'nope')).code).toBe(404);
    expect((await cloud.renameFileFolder('gus', 'docs', 'x.txt', 'y.txt')).code).toBe(201);
    expect((await cloud.renameFileFolder('gus', 'docs', 'x.txt', 'z.txt')).code).toBe(404);
    expect((await cloud.deleteFolder('gus', 'docs')).code).toBe(200);
    expect((await cloud.deleteFolder('gus', 'docs')).code).toBe(404);
    // deleteFileFolder reads `this.this.cloudUrl` and throws inside the library, whatever the server.
  });

  it('dash, and a wrong key answers 401 everywhere', async () => {
    expect((await cloud.getDashInfo()).code).toBe(200);
    expect((await wrongKey.getDashInfo()).code).toBe(401);
    expect((await wrongKey.getUsers()).code).toBe(401);
    expect((await wrongKey.getRoles()).code).toBe(401);
    expect((await wrongKey.createUser('x', 'x@example.com', 'password1')).code).toBe(401);
  });
});
