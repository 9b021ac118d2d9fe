/** util/json-bytes.ts: a list copied from each entry's UTF-8 JSON is the JSON of the list, byte for byte. */
import { describe, expect, it } from 'vitest';
import { JsonBytes, jsonListBytes } from '../../daemon/util/json-bytes.js';

const bytesOf = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');

describe('jsonListBytes', () => {
  it('is JSON.stringify of the list, for no entry, one and many, with names outside ASCII', () => {
    const entries = [
      { name: 'Crème.txt', size: 1 },
      { name: '日本語.pdf', size: 22 },
      { name: '🦊 "quoted"\\.md', size: 333 },
    ];
    for (let n = 0; n <= entries.length; n++) {
      const list = entries.slice(0, n);
      const made = jsonListBytes<{ files: typeof list }>('files', list.map(bytesOf));
      expect(made).toBeInstanceOf(JsonBytes);
      expect(made.bytes.equals(bytesOf({ files: list }))).toBe(true);
      expect(made.parse()).toEqual({ files: list });
    }
  });
});
