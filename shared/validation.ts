/**
 * Value rules shared by the daemon (which enforces them at the edge) and the UI
 * (which shows them before submit). Each validator returns the normalised value or
 * an error message; none touches the disk.
 */

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const fail = <T>(message: string): Checked<T> => ({ ok: false, message });

export const NAME_RULE = '1–64 characters: letters, digits, ".", "_" or "-" (not "." or "..", and not starting with ".nimbus")';
export const PASSWORD_RULE = 'at least 8 characters';
/** The characters a file or folder name may not contain, as people are told them. */
export const FILE_NAME_REFUSED_CHARACTERS = '/ \\ < > : " | ? *';
export const FILE_NAME_RULE = `1–255 bytes; none of ${FILE_NAME_REFUSED_CHARACTERS} or control characters; no trailing dot or space; not a reserved name such as CON or NUL, nor one starting with .nimbus`;

export const RESERVED_NAME_RULE = 'names starting with ".nimbus", or ending in ".nimbus-" and hex digits, are kept for Nimbus’s own files';

const ACCOUNT_NAME = /^[A-Za-z0-9._-]{1,64}$/;
// Deliberately simple: one "@", no spaces, a dot in the domain. RFC 5322 is not the point.
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
// Control characters (C0, DEL, C1) and characters that reorder or hide text (bidi, zero-width).
const FORBIDDEN_IN_FILE_NAME = /[\u0000-\u001f\u007f-\u009f/\\<>:"|?*\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/u;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
/**
 * Names Nimbus itself uses in the storage tree: the `.nimbus-storage` marker at its root,
 * hidden staging names (`.nimbus-copy-<hex>`, `.nimbus-staged-<hex>`, `.nimbus-<hex>`:
 * daemon/storage/staging-names.ts) in user directories, and `<file>.nimbus-<hex>`, which the
 * first versions staged a replacing move under. Case-insensitive, since on the disks of macOS and
 * Windows `.NIMBUS-STORAGE` is the marker. Refusing them keeps a user, folder or file from
 * colliding with Nimbus's own files, and keeps those files out of every listing (the scan
 * skips names this module refuses).
 */
const RESERVED_NAME = /^\.nimbus|\.nimbus-[0-9a-f]{6,}$/i;
const utf8 = new TextEncoder();

/**
 * Whether `text` takes more than `max` bytes in UTF-8. A UTF-16 unit is at most 3 bytes, so
 * text of up to a third of `max` units is never counted: encoding every name (an array buffer
 * each) was ~4 µs of a WebDAV MOVE, which checks its names six times (bench/NOTES.md, issue 26).
 */
const utf8Exceeds = (text: string, max: number): boolean => text.length * 3 > max && utf8.encode(text).length > max;

/** A username or role name. */
export function checkAccountName(raw: string): Checked<string> {
  if (!ACCOUNT_NAME.test(raw) || raw === '.' || raw === '..') return fail(`must be ${NAME_RULE}`);
  // A username is also a directory name: the file-name rules for devices and dots apply.
  if (raw.endsWith('.')) return fail('must not end with a dot');
  if (WINDOWS_RESERVED.test(raw)) return fail('must not be a reserved device name (CON, NUL, COM1…)');
  if (RESERVED_NAME.test(raw)) return fail(`must not be a reserved name: ${RESERVED_NAME_RULE}`);
  return ok(raw);
}

export function checkEmail(raw: string): Checked<string> {
  if (raw.length > 254 || !EMAIL.test(raw)) return fail('must be an e-mail address such as ana@example.com');
  return ok(raw);
}

export function checkPassword(raw: string): Checked<string> {
  if (raw.length < 8) return fail(`must be ${PASSWORD_RULE}`);
  if (raw.length > 1024) return fail('must be at most 1024 characters');
  return ok(raw);
}

/** A file or folder name: one path component, NFC-normalised. */
export function checkFileName(raw: string): Checked<string> {
  const name = raw.normalize('NFC');
  if (name.length === 0 || utf8Exceeds(name, 255)) return fail('must be 1–255 bytes long');
  if (name === '.' || name === '..') return fail('must not be "." or ".."');
  if (FORBIDDEN_IN_FILE_NAME.test(name)) return fail(`must not contain ${FILE_NAME_REFUSED_CHARACTERS}, control or invisible characters`);
  if (/[. ]$/.test(name)) return fail('must not end with a dot or a space');
  if (WINDOWS_RESERVED.test(name)) return fail('must not be a reserved device name (CON, NUL, COM1…)');
  if (RESERVED_NAME.test(name)) return fail(`must not be a reserved name: ${RESERVED_NAME_RULE}`);
  return ok(name);
}

/** How deep a folder path may go, and how long it may be (issue 25; docs/tree.md). */
export const FOLDER_PATH_MAX_LEVELS = 64;
export const FOLDER_PATH_MAX_BYTES = 4096;
export const FOLDER_PATH_RULE = `folder names separated by "/" (each ${FILE_NAME_RULE}); at most ${FOLDER_PATH_MAX_LEVELS} levels and 4,096 bytes`;

/**
 * A folder path: names separated by `/`, each a valid name (NFC-normalised). No empty,
 * "." or ".." component, no leading or trailing `/`, no `\`: a path names one folder one
 * way, so the index and the disk walk never have to resolve it.
 */
export function checkFolderPath(raw: string): Checked<string> {
  const normalised = raw.normalize('NFC');
  if (normalised.includes('\\')) return fail('must not contain \\ (folders are separated by /)');
  if (normalised.startsWith('/') || normalised.endsWith('/')) return fail('must not start or end with /');
  if (utf8Exceeds(normalised, FOLDER_PATH_MAX_BYTES)) return fail('must be at most 4,096 bytes long');
  const names = normalised.split('/');
  if (names.length > FOLDER_PATH_MAX_LEVELS) return fail(`must be at most ${FOLDER_PATH_MAX_LEVELS} levels deep`);
  for (const name of names) {
    if (name === '') return fail('must not have an empty folder name (two / in a row)');
    const checked = checkFileName(name);
    if (!checked.ok) return fail(`has a folder name that ${checked.message}`);
  }
  return ok(normalised);
}

/** An http(s) URL of at most 2048 characters. */
export function checkBadgeUrl(raw: string): Checked<string> {
  if (raw.length > 2048) return fail('must be at most 2048 characters');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('must be an http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail('must be an http(s) URL');
  return ok(raw);
}

/** A storage size in MiB: a whole number ≥ 0, or -1 for unlimited. */
export function checkMaxStorage(raw: string): Checked<number> {
  if (!/^(-1|0|[1-9][0-9]{0,8})$/.test(raw.trim())) {
    return fail('must be a whole number of MB (or -1 for unlimited)');
  }
  return ok(Number(raw.trim()));
}

/** A key's scope: "admin" or "read" for a machine key, "write" or "read" for a personal key (the daemon checks which applies). */
export function checkScope(raw: string): Checked<'admin' | 'read' | 'write'> {
  if (raw !== 'admin' && raw !== 'read' && raw !== 'write') return fail('must be "admin", "read" or "write"');
  return ok(raw);
}

export function checkBoolean(raw: string): Checked<boolean> {
  if (raw === 'true' || raw === '1') return ok(true);
  if (raw === 'false' || raw === '0') return ok(false);
  return fail('must be true or false');
}

export function checkNonNegativeInt(raw: string): Checked<number> {
  if (!/^[0-9]{1,9}$/.test(raw)) return fail('must be a whole number ≥ 0');
  return ok(Number(raw));
}

/** A verification or share token: URL-safe base64, 16–128 characters. */
export function checkToken(raw: string): Checked<string> {
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(raw)) return fail('is not a valid token');
  return ok(raw);
}
