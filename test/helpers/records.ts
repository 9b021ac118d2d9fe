/** Shape checks for the API's records (shared/types.ts) and error bodies (`{error, code}`, shared/errors.ts). */
import { expect } from 'vitest';
import { ERROR_STATUS } from '../../shared/errors.js';
import type { ApiResponse } from './daemon.js';

const USER_KEYS = ['createdAt', 'email', 'emailVerified', 'role', 'usage', 'username'];
const USAGE_KEYS = ['maxBytes', 'overQuota', 'usedBytes'];
const ROLE_KEYS = ['badge', 'builtIn', 'maxStorage', 'name'];
const FOLDER_KEYS = ['fileCount', 'folderCount', 'modifiedAt', 'name', 'path', 'sizeBytes'];
const FILE_KEYS = ['folder', 'mimeType', 'modifiedAt', 'name', 'shareUrl', 'shared', 'size'];
const ISO_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

export function expectUser(u: unknown): void {
  const user = u as Record<string, unknown>;
  expect(Object.keys(user).sort()).toEqual(USER_KEYS);
  expect(Object.keys(user.usage as object).sort()).toEqual(USAGE_KEYS);
  expect(user).toMatchObject({
    username: expect.any(String),
    email: expect.any(String),
    role: expect.any(String),
    emailVerified: expect.any(Boolean),
  });
  expect(user.createdAt).toMatch(ISO_DATE);
  expect(user.usage).toEqual({ usedBytes: expect.any(Number), maxBytes: expect.any(Number), overQuota: expect.any(Boolean) });
}

export function expectRole(r: unknown): void {
  expect(Object.keys(r as object).sort()).toEqual(ROLE_KEYS);
  expect(r).toEqual({ name: expect.any(String), maxStorage: expect.any(Number), badge: expect.any(String), builtIn: expect.any(Boolean) });
}

export function expectFolder(f: unknown): void {
  expect(Object.keys(f as object).sort()).toEqual(FOLDER_KEYS);
  expect(f).toEqual({
    name: expect.any(String),
    path: expect.any(String),
    fileCount: expect.any(Number),
    folderCount: expect.any(Number),
    sizeBytes: expect.any(Number),
    modifiedAt: expect.stringMatching(ISO_DATE),
  });
}

export function expectFileEntry(f: unknown): void {
  const file = f as Record<string, unknown>;
  expect(Object.keys(file).sort()).toEqual(FILE_KEYS);
  expect(file).toMatchObject({
    name: expect.any(String),
    size: expect.any(Number),
    mimeType: expect.any(String),
    shared: expect.any(Boolean),
  });
  expect(file.modifiedAt).toMatch(ISO_DATE);
  expect(file.folder === null || typeof file.folder === 'string').toBe(true);
  expect(file.shared ? typeof file.shareUrl === 'string' : file.shareUrl === null).toBe(true);
}

/** `{error, code}` and nothing else (but a quota refusal's `needed` and `available` bytes), with the code's own status. */
export function expectErrorBody(res: ApiResponse, status: number, code?: string): void {
  expect(res.status, res.text).toBe(status);
  const room = res.body.code === 'quota_exceeded' ? ['available', 'needed'] : [];
  expect(
    Object.keys(res.body)
      .filter((key) => !room.includes(key))
      .sort(),
  ).toEqual(['code', 'error']);
  for (const key of room) if (key in res.body) expect(Number.isSafeInteger(res.body[key]) && res.body[key] >= 0).toBe(true);
  expect(res.body.error).toEqual(expect.any(String));
  expect(ERROR_STATUS[res.body.code as keyof typeof ERROR_STATUS]).toBe(status);
  if (code) expect(res.body.code).toBe(code);
}
