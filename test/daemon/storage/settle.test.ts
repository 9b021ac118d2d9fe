/** Write-settling: a name is handed on once, when gone or when its size has been still long enough. */
import type { Stats } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Settler, type Look } from '../../../daemon/storage/live/settle.js';

const file = (size: number) => ({ isFile: () => true, size }) as Stats;
const dir = { isFile: () => false } as Stats;

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function settler(looks: Map<string, Look>) {
  const settled: [string, string, Stats | null][] = [];
  const s = new Settler<string>({
    look: async (batch) => batch.map(([p]) => (looks.has(p) ? looks.get(p) : null)),
    settled: (p, at, stat) => settled.push([p, at, stat]),
    quietMs: 200,
    pollMs: 50,
  });
  return { s, settled };
}

describe('Settler', () => {
  it('hands on a file once its size has been still for the quiet time', async () => {
    const looks = new Map<string, Look>([['/a', file(1)]]);
    const { s, settled } = settler(looks);
    s.add('/a', 'A');
    await vi.advanceTimersByTimeAsync(150);
    expect(settled).toEqual([]);
    looks.set('/a', file(2)); // still being written
    await vi.advanceTimersByTimeAsync(150);
    expect(settled).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    expect(settled.map(([p, at, stat]) => [p, at, stat?.size])).toEqual([['/a', 'A', 2]]);
    expect(s.size).toBe(0);
  });

  it('hands on at the first look a file it already knows as it is (the daemon’s own write), and waits again for a later write', async () => {
    const looks = new Map<string, Look>([
      ['/own', file(4)],
      ['/other', file(4)],
    ]);
    const settled: [string, number | undefined][] = [];
    let known = true;
    const s = new Settler<string>({
      look: async (batch) => batch.map(([p]) => looks.get(p)),
      settled: (p, _at, stat) => settled.push([p, stat?.size]),
      known: (at, stat) => known && at === 'own' && stat.size === 4,
      quietMs: 200,
      pollMs: 50,
    });
    s.add('/own', 'own');
    s.add('/other', 'other');
    await vi.advanceTimersByTimeAsync(60);
    expect(settled).toEqual([['/own', 4]]);
    expect(s.size).toBe(1);
    // Written again (the file no longer as known): the quiet time as for any other name.
    known = false;
    looks.set('/own', file(9));
    s.add('/own', 'own');
    await vi.advanceTimersByTimeAsync(100);
    expect(settled).toEqual([['/own', 4]]);
    await vi.advanceTimersByTimeAsync(300);
    expect(settled.slice(1).sort()).toEqual([
      ['/other', 4],
      ['/own', 9],
    ]);
  });

  it('looks again after a failed look instead of taking the names as gone (a busy machine’s EMFILE lost new files)', async () => {
    const settled: [string, Stats | null][] = [];
    let failures = 2;
    const s = new Settler<string>({
      look: async (batch) => {
        if (failures-- > 0) throw Object.assign(new Error('too many open files'), { code: 'EMFILE' });
        return batch.map(() => dir);
      },
      settled: (p, _at, stat) => settled.push([p, stat]),
      quietMs: 200,
      pollMs: 50,
    });
    s.add('/new', 'N');
    await vi.advanceTimersByTimeAsync(120);
    expect(settled).toEqual([]);
    await vi.advanceTimersByTimeAsync(100);
    expect(settled).toEqual([['/new', dir]]);
  });

  it('takes a batch as gone only after many failed looks in a row', async () => {
    const settled: [string, Stats | null][] = [];
    const s = new Settler<string>({
      look: async () => {
        throw new Error('unreadable');
      },
      settled: (p, _at, stat) => settled.push([p, stat]),
      quietMs: 200,
      pollMs: 50,
    });
    s.add('/x', 'X');
    await vi.advanceTimersByTimeAsync(50 * 25);
    expect(settled).toEqual([['/x', null]]);
  });

  it('hands on a name that is gone, or not a file, at the first look', async () => {
    const { s, settled } = settler(new Map([['/d', dir]]));
    s.add('/gone', 'G');
    s.add('/d', 'D');
    await vi.advanceTimersByTimeAsync(60);
    expect(settled).toEqual([
      ['/gone', 'G', null],
      ['/d', 'D', dir],
    ]);
  });

  it('looks again at a name read as undefined (changed by the API meanwhile)', async () => {
    const looks = new Map<string, Look>([['/a', undefined]]);
    const { s, settled } = settler(looks);
    s.add('/a', 'A');
    await vi.advanceTimersByTimeAsync(120);
    expect(settled).toEqual([]);
    looks.set('/a', null);
    await vi.advanceTimersByTimeAsync(60);
    expect(settled).toEqual([['/a', 'A', null]]);
  });

  it('applies nothing of a look in flight once cleared', async () => {
    let release: (looks: Look[]) => void = () => undefined;
    const settled: string[] = [];
    const s = new Settler<string>({
      look: () => new Promise((resolve) => (release = resolve)),
      settled: (p) => settled.push(p),
    });
    s.add('/a', 'A');
    await vi.advanceTimersByTimeAsync(60);
    s.clear();
    release([null]);
    await vi.advanceTimersByTimeAsync(500);
    expect(settled).toEqual([]);
    expect(s.size).toBe(0);
  });
});
