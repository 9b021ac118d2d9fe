/**
 * TrackedMap (daemon/store/tracked-map.ts): what services change is recorded for the next
 * change-set; what a backend loads or receives from another daemon is not.
 */
import { describe, expect, it } from 'vitest';
import { TrackedMap } from '../../daemon/store/tracked-map.js';

describe('TrackedMap', () => {
  it('records the keys set, deleted or cleared, once each, until taken', () => {
    const map = new TrackedMap<number>();
    map.set('a', 1).set('a', 2).set('b', 3);
    map.delete('b');
    map.delete('never');
    expect([...map.takeDirty().keys].sort()).toEqual(['a', 'b']);
    expect(map.takeDirty().keys.size).toBe(0);
    map.clear();
    expect([...map.takeDirty().keys]).toEqual(['a']);
    map.touch('x');
    expect([...map.takeDirty().keys]).toEqual(['x']);
  });

  it('compares writes: keeps each record as it was before its first change, for updates and deleteExisting, until taken', () => {
    const map = new TrackedMap<number>();
    map.comparesWrites = true;
    map.set('a', 1).set('b', 2).set('c', 3).set('d', 4);
    expect(map.takeDirty().expected.size).toBe(0); // new records: nothing to compare with
    map.set('a', 10).set('a', 11);
    map.deleteExisting('b');
    map.delete('c');
    map.deleteExisting('never');
    map.set('new', 5);
    const taken = map.takeDirty();
    expect([...taken.keys].sort()).toEqual(['a', 'b', 'c', 'new']);
    expect([...taken.expected].sort()).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(map.takeDirty().expected.size).toBe(0);
    expect(() => map.touch('a')).toThrow();
    expect(() => new TrackedMap<number>().deleteExisting('a')).toThrow();
  });

  it('records nothing that a backend loads or applies', () => {
    const map = new TrackedMap<number>();
    map.set('mine', 1);
    map.load([
      ['a', 1],
      ['b', 2],
    ]);
    map.applyRemote('c', 3);
    map.applyRemote('a', undefined);
    expect([...map.entries()]).toEqual([
      ['b', 2],
      ['c', 3],
    ]);
    expect(map.takeDirty().keys.size).toBe(0);
  });

  it('records nothing when tracking is off (a backend that writes snapshots)', () => {
    const map = new TrackedMap<number>();
    map.tracking = false;
    map.set('a', 1);
    map.delete('a');
    map.touch('a');
    expect(map.takeDirty().keys.size).toBe(0);
  });
});
