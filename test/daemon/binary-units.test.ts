import { describe, expect, it } from 'vitest';
import { binarySize } from '../../daemon/http/pages.js';
import { formatBytes } from '../../daemon/migrate/streams.js';

// Bytes, as a share page shows them (no decimal from 10 up), as a migration summary does (one decimal).
const SIZES: [number, string, string][] = [
  [0, '0 B', '0 bytes'],
  [1023, '1023 B', '1023 bytes'],
  [1024, '1.0 KiB', '1.0 KiB'],
  [1536, '1.5 KiB', '1.5 KiB'],
  [10 * 1024, '10 KiB', '10.0 KiB'],
  [5 * 1024 ** 3, '5.0 GiB', '5.0 GiB'],
  [3 * 1024 ** 5, '3072 TiB', '3072.0 TiB'],
];

describe('sizes in binary units', () => {
  it.each(SIZES)('shows %i bytes as %s on a share page and %s in a migration summary', (bytes, page, summary) => {
    expect(binarySize(bytes)).toBe(page);
    expect(formatBytes(bytes)).toBe(summary);
  });
});
