/** Sizes, numbers and dates in the UI's language, sizes in the API's binary units (issue 13). */
import { afterEach, describe, expect, it } from 'vitest';
import { chooseLanguage } from '../../renderer/i18n';
import { formatBytes, formatModified, formatNumber, formatQuotaMb } from '../../renderer/lib/format';

afterEach(() => chooseLanguage('en'));

describe('format', () => {
  it('writes sizes in B, KiB, MiB, GiB and TiB, never MB', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(900)).toBe('900 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(12 * 2 ** 20)).toBe('12 MiB');
    expect(formatBytes(123.4 * 2 ** 20)).toBe('123 MiB');
    expect(formatBytes(2 * 2 ** 30)).toBe('2 GiB');
    expect(formatBytes(3 * 2 ** 40)).toBe('3 TiB');
    expect(formatBytes(-1)).toBe('—');
    expect(formatQuotaMb(128)).toBe('128 MiB');
    expect(formatQuotaMb(2048)).toBe('2 GiB');
    expect(formatQuotaMb(1536)).toBe('1.5 GiB');
    expect(formatQuotaMb(-1)).toBe('Unlimited');
  });

  it('follows the language: decimal comma and grouping in Czech, words for today and yesterday', async () => {
    await chooseLanguage('cs');
    expect(formatBytes(1536)).toBe('1,5 KiB');
    expect(formatNumber(12345)).toBe('12\u00a0345');
    expect(formatQuotaMb(-1)).toBe('Neomezeno');
    const now = new Date(2026, 2, 10, 15, 0);
    expect(formatModified(new Date(2026, 2, 10, 14, 2).toISOString(), now)).toBe('Dnes, 14:02');
    expect(formatModified(new Date(2026, 2, 9, 9, 10).toISOString(), now)).toBe('Včera, 9:10');
    await chooseLanguage('ja');
    expect(formatModified(new Date(2026, 2, 10, 14, 2).toISOString(), now)).toBe('今日 14:02');
    await chooseLanguage('en');
    expect(formatModified(new Date(2026, 2, 10, 14, 2).toISOString(), now)).toMatch(/^Today, 2:02\sPM$/);
    expect(formatNumber(12345)).toBe('12,345');
  });
});
