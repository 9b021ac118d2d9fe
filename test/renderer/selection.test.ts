import { describe, expect, it } from 'vitest';
import { EMPTY_SELECTION, clickSelect, moveActive, pruneSelection, selectAll } from '../../renderer/lib/selection';

const keys = ['a', 'b', 'c', 'd', 'e'];
const sorted = (set: ReadonlySet<string>) => [...set].sort();

describe('multi-selection', () => {
  it('selects one on click, toggles with Ctrl, and selects a range with Shift', () => {
    let s = clickSelect(EMPTY_SELECTION, keys, 'b', { shift: false, toggle: false });
    expect(sorted(s.selected)).toEqual(['b']);
    s = clickSelect(s, keys, 'd', { shift: false, toggle: true });
    expect(sorted(s.selected)).toEqual(['b', 'd']);
    s = clickSelect(s, keys, 'b', { shift: false, toggle: true });
    expect(sorted(s.selected)).toEqual(['d']);
    s = clickSelect(s, keys, 'd', { shift: false, toggle: false });
    s = clickSelect(s, keys, 'a', { shift: true, toggle: false });
    expect(sorted(s.selected)).toEqual(['a', 'b', 'c', 'd']);
    expect(s.anchor).toBe('d');
  });

  it('adds a Shift range to the selection with Ctrl+Shift', () => {
    let s = clickSelect(EMPTY_SELECTION, keys, 'a', { shift: false, toggle: false });
    s = clickSelect(s, keys, 'd', { shift: false, toggle: true });
    s = clickSelect(s, keys, 'e', { shift: true, toggle: true });
    expect(sorted(s.selected)).toEqual(['a', 'd', 'e']);
  });

  it('moves with the arrows and extends with Shift, clamped to the list', () => {
    let s = moveActive(EMPTY_SELECTION, keys, 1, false);
    expect(s.active).toBe('a');
    s = moveActive(s, keys, 2, true);
    expect(sorted(s.selected)).toEqual(['a', 'b', 'c']);
    s = moveActive(s, keys, 99, false);
    expect([...s.selected]).toEqual(['e']);
    expect(sorted(selectAll(s, keys).selected)).toEqual(keys);
  });

  it('goes to the first or last row when nothing is active yet (Home, End, arrows)', () => {
    expect(moveActive(EMPTY_SELECTION, keys, keys.length, false).active).toBe('e');
    expect(moveActive(EMPTY_SELECTION, keys, -keys.length, false).active).toBe('a');
    expect(moveActive(EMPTY_SELECTION, keys, -1, false).active).toBe('e');
    expect(moveActive(EMPTY_SELECTION, keys, 3, false).active).toBe('c');
  });

  it('drops keys that disappeared and keeps the same object when nothing changed', () => {
    const s = clickSelect(EMPTY_SELECTION, keys, 'c', { shift: false, toggle: false });
    expect(pruneSelection(s, keys)).toBe(s);
    expect(pruneSelection(s, ['a', 'b'])).toEqual({ selected: new Set(), anchor: null, active: null });
  });
});
