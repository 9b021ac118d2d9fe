/**
 * The byte limits of names and folder paths (shared/validation.ts): 255 bytes a name and
 * 4,096 a path in UTF-8, exactly at the boundary, whatever the width of the characters. Short
 * text is not encoded to be counted (a UTF-16 unit is at most 3 bytes), so the boundary is
 * checked here on both sides of that shortcut.
 */
import { describe, expect, it } from 'vitest';
import { checkFileName, checkFolderPath } from '../../shared/validation.js';

const passes = (checked: { ok: boolean }) => checked.ok;

describe('name and path lengths in UTF-8 bytes', () => {
  it.each([
    ['one byte', 'a', 255],
    ['two bytes', 'é', 127],
    ['three bytes', '中', 85],
    ['four bytes (two UTF-16 units)', '😀', 63],
  ])('a name of %s characters passes at the last whole character within 255 bytes and fails one past', (_width, char, fits) => {
    expect(passes(checkFileName(char.repeat(fits)))).toBe(true);
    expect(passes(checkFileName(char.repeat(fits + 1)))).toBe(false);
  });

  it('counts mixed widths exactly: 255 bytes pass, 256 fail', () => {
    const at255 = `${'中'.repeat(84)}é${'a'.repeat(1)}`; // 252 + 2 + 1
    expect(new TextEncoder().encode(at255).length).toBe(255);
    expect(passes(checkFileName(at255))).toBe(true);
    expect(passes(checkFileName(`${at255}a`))).toBe(false);
    expect(passes(checkFileName(''))).toBe(false);
  });

  it('a folder path passes at 4,096 bytes and fails at 4,097', () => {
    const name = 'é'.repeat(127); // 254 bytes
    const sixteen = Array.from({ length: 16 }, () => name).join('/'); // 16 × 254 + 15 = 4,079
    const at4096 = `${sixteen}/${'a'.repeat(16)}`;
    expect(new TextEncoder().encode(at4096).length).toBe(4096);
    expect(passes(checkFolderPath(at4096))).toBe(true);
    expect(passes(checkFolderPath(`${at4096}a`))).toBe(false);
  });
});
