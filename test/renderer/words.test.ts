/**
 * Errors in the person's words (issue 29, item 4): the quota sentence and the check before an
 * upload starts (renderer/upload/quotaRoom.ts), and errorText never showing the daemon's
 * English in another language.
 */
import { afterEach, describe, expect, it } from 'vitest';
import i18next from 'i18next';
import { userMessage, ruleText } from '../../renderer/api/errorText';
import { freeBytes, pendingBytes, roomText, upFrontRefusal } from '../../renderer/upload/quotaRoom';
import type { UploadItem } from '../../renderer/upload/UploadQueue';
import { checkFileName } from '../../shared/validation';

const MIB = 1024 * 1024;
const usage = (usedBytes: number, maxBytes: number, versionBytes = 0) => ({ usedBytes, maxBytes, versionBytes });
const item = (patch: Partial<UploadItem>): UploadItem => ({
  id: 'u',
  username: 'ana',
  folder: null,
  name: 'a.bin',
  overwrite: false,
  size: MIB,
  loaded: 0,
  status: 'queued',
  error: null,
  errorStatus: null,
  besides: null,
  badName: false,
  ...patch,
});

afterEach(async () => {
  await i18next.changeLanguage('en');
});

describe('the quota before an upload', () => {
  it('refuses a file that does not fit, naming what it needs and what is free', () => {
    const free = freeBytes(usage(15.8 * MIB, 20 * MIB), 0);
    expect(upFrontRefusal([{ name: 'big backup.bin', size: 4.8 * MIB }], free)).toBe('“big backup.bin” needs 4.8 MiB; 4.2 MiB free.');
    expect(upFrontRefusal([{ name: 'small.bin', size: 4 * MIB }], free)).toBeNull();
  });

  it('counts a batch together, and says how many files', () => {
    const files = [1, 2, 3].map((n) => ({ name: `${n}.bin`, size: 2 * MIB }));
    expect(upFrontRefusal(files, 5 * MIB)).toBe('These 3 files need 6 MiB; 5 MiB free.');
  });

  it('never refuses without a limit, and counts kept versions as free (they give way) and the queue’s pending bytes as taken', () => {
    expect(upFrontRefusal([{ name: 'a', size: 10 ** 12 }], freeBytes(usage(0, -1), 0))).toBeNull();
    expect(freeBytes(usage(8 * MIB, 10 * MIB, 3 * MIB), MIB)).toBe(4 * MIB);
    expect(freeBytes(usage(12 * MIB, 10 * MIB), 0)).toBe(0);
    const items = [
      item({ size: MIB }),
      item({ status: 'uploading', size: 2 * MIB }),
      item({ status: 'done', size: 4 * MIB }),
      item({ overwrite: true, size: 8 * MIB }),
      item({ username: 'bob', size: 16 * MIB }),
    ];
    expect(pendingBytes(items, 'ana')).toBe(3 * MIB);
  });

  it('is said in Czech with Czech numbers', async () => {
    await i18next.changeLanguage('cs');
    expect(roomText({ name: 'big backup.bin' }, 4.8 * MIB, 4.2 * MIB)).toBe('„big backup.bin“ potřebuje 4,8 MiB; volné je 4,2 MiB.');
    expect(roomText({ count: 3 }, 6 * MIB, 5 * MIB)).toBe('Tyto 3 soubory potřebují 6 MiB; volné je 5 MiB.');
  });
});

describe('errorText in another language', () => {
  it('never shows the daemon’s English, for any code', async () => {
    await i18next.changeLanguage('cs');
    for (const code of ['quota_exceeded', 'disk_full', 'conflict', 'forbidden', 'not_found', 'http_502', 'something_new']) {
      const said = userMessage(code, 'English words from the daemon');
      expect(said, code).not.toContain('English');
      expect(said, code).not.toBe('');
    }
  });

  it('says a name rule in the language, and keeps the rule’s own words in English', async () => {
    const rule = (name: string) => {
      const checked = checkFileName(name);
      return checked.ok ? '' : checked.message;
    };
    expect(ruleText(rule('a/b'))).toBe(rule('a/b'));
    expect(ruleText(rule('dot.'))).toBe('must not end with a dot or a space');
    await i18next.changeLanguage('cs');
    expect(ruleText(rule('dot.'))).toBe('nesmí končit tečkou ani mezerou');
    expect(ruleText('some rule the UI does not know')).toBe('není povolen');
    expect(userMessage('invalid_parameter', `Parameter newname ${rule('CON')}`)).not.toMatch(/reserved/);
  });
});
