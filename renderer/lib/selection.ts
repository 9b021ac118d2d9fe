/**
 * Multi-selection over an ordered list of row keys, as in Finder: a click selects one,
 * Ctrl/Cmd+click toggles, Shift+click selects the range from the anchor, arrows move
 * the active row and Shift+arrows extend from the anchor. On a touch screen, as in a phone's
 * file manager: a long press selects and enters selection mode, where taps toggle rows.
 */
export interface Selection {
  selected: ReadonlySet<string>;
  /** Where a Shift range starts. */
  anchor: string | null;
  /** The row with keyboard focus. */
  active: string | null;
  /**
   * Entered by a long press on a touch screen: while rows are selected, a tap toggles one
   * rather than opening it. Any mouse or keyboard change makes a selection without it.
   */
  touch?: boolean;
}

export const EMPTY_SELECTION: Selection = { selected: new Set(), anchor: null, active: null };

/** Only `key`, which becomes the anchor and the active row (a plain click). */
export const selectOnly = (key: string): Selection => ({ selected: new Set([key]), anchor: key, active: key });

function range(keys: readonly string[], from: string | null, to: string): string[] {
  const end = keys.indexOf(to);
  const start = from === null ? -1 : keys.indexOf(from);
  if (end === -1) return [];
  if (start === -1) return [to];
  return keys.slice(Math.min(start, end), Math.max(start, end) + 1);
}

export function clickSelect(
  state: Selection,
  keys: readonly string[],
  key: string,
  modifiers: { shift: boolean; toggle: boolean },
): Selection {
  if (modifiers.shift && state.anchor !== null && keys.includes(state.anchor)) {
    const span = range(keys, state.anchor, key);
    const selected = modifiers.toggle ? new Set([...state.selected, ...span]) : new Set(span);
    return { selected, anchor: state.anchor, active: key };
  }
  if (modifiers.toggle) {
    const selected = new Set(state.selected);
    if (selected.has(key)) selected.delete(key);
    else selected.add(key);
    return { selected, anchor: key, active: key };
  }
  return selectOnly(key);
}

/** Whether taps toggle rows: selection mode, entered by a long press, lasts while anything is selected. */
export const inTouchSelection = (state: Selection): boolean => state.touch === true && state.selected.size > 0;

/**
 * A long press, or a tap in selection mode: toggles `key` and stays in (or enters) selection
 * mode; a long press outside it selects `key` alone, whatever a mouse had selected before.
 */
export function touchSelect(state: Selection, key: string): Selection {
  const next = inTouchSelection(state) ? clickSelect(state, [key], key, { shift: false, toggle: true }) : selectOnly(key);
  return { ...next, touch: true };
}

/** Moves the active row by `delta` (clamped), selecting it or extending the range. */
export function moveActive(state: Selection, keys: readonly string[], delta: number, extend: boolean): Selection {
  if (keys.length === 0) return state;
  const current = state.active === null ? -1 : keys.indexOf(state.active);
  // With no active row, moving starts from just before the first row (or after the last).
  const from = current === -1 ? (delta >= 0 ? -1 : keys.length) : current;
  const index = Math.max(0, Math.min(keys.length - 1, from + delta));
  const key = keys[index];
  if (extend) {
    const anchor = state.anchor !== null && keys.includes(state.anchor) ? state.anchor : (state.active ?? key);
    return { selected: new Set(range(keys, anchor, key)), anchor, active: key };
  }
  return selectOnly(key);
}

export function selectAll(state: Selection, keys: readonly string[]): Selection {
  return { selected: new Set(keys), anchor: keys[0] ?? null, active: state.active ?? keys[0] ?? null };
}

export function toggleActive(state: Selection): Selection {
  if (state.active === null) return state;
  return clickSelect(state, [state.active], state.active, { shift: false, toggle: true });
}

/** The selection restricted to keys that still exist (after a refetch, filter or rename). */
export function pruneSelection(state: Selection, keys: readonly string[]): Selection {
  const present = new Set(keys);
  const selected = [...state.selected].filter((key) => present.has(key));
  const same = selected.length === state.selected.size;
  const active = state.active !== null && present.has(state.active) ? state.active : null;
  const anchor = state.anchor !== null && present.has(state.anchor) ? state.anchor : null;
  if (same && active === state.active && anchor === state.anchor) return state;
  return { ...state, selected: new Set(selected), anchor, active };
}
