import { useCallback, useEffect, useMemo, useRef, type PointerEvent } from 'react';
import type { Row } from '../../lib/rows';

/** How long a finger rests on a row before it selects it (Android's and iOS's long press is about this). */
export const LONG_PRESS_MS = 500;
/** How far a finger may drift during a long press; more is a scroll, not a press. */
export const LONG_PRESS_SLOP_PX = 10;

/** What a row's click came from: a mouse (or pen) as today, a finger's tap, or the end of a long press (ignored). */
export type ClickSource = 'mouse' | 'tap' | 'after-long-press';

/** The pointer handlers a row or card takes; one object for the whole list, so memoised rows keep it. */
export interface RowGestures {
  onPointerDown: (row: Row, event: PointerEvent) => void;
  onPointerMove: (event: PointerEvent) => void;
  /** pointerup and pointercancel (the browser took the finger for a scroll). */
  onPointerEnd: () => void;
  /** A context menu asked for by a finger (Chromium's own long press): true when the long press took it. */
  takeContextMenu: (row: Row) => boolean;
  /** Called by the row's click handler: where that click came from. */
  clickSource: () => ClickSource;
  /** Whether the row was last pressed by a finger (then a drag is a scroll or a long press, never a move). */
  byTouch: () => boolean;
}

/**
 * Touch gestures on rows, with Pointer Events: a long press (LONG_PRESS_MS without moving more
 * than LONG_PRESS_SLOP_PX) calls `onLongPress`; the click a tap ends with is told apart from a
 * mouse's, so the list can open on a tap and keep selecting on a click.
 */
export function useTouchGestures(onLongPress: (row: Row) => void): RowGestures {
  const onLongPressRef = useRef(onLongPress);
  onLongPressRef.current = onLongPress;
  const press = useRef<{ row: Row; timer: ReturnType<typeof setTimeout>; x: number; y: number } | null>(null);
  // The kind of the last pointer pressed on a row: the click that follows is that pointer's.
  const lastPointer = useRef<string>('mouse');
  const longPressed = useRef(false);

  const cancel = useCallback(() => {
    if (press.current) clearTimeout(press.current.timer);
    press.current = null;
  }, []);
  useEffect(() => cancel, [cancel]);

  const fire = useCallback(
    (row: Row) => {
      cancel();
      longPressed.current = true;
      onLongPressRef.current(row);
    },
    [cancel],
  );

  return useMemo<RowGestures>(
    () => ({
      onPointerDown: (row, event) => {
        cancel();
        lastPointer.current = event.pointerType;
        longPressed.current = false;
        if (event.pointerType !== 'touch' || !event.isPrimary) return;
        press.current = { row, timer: setTimeout(() => fire(row), LONG_PRESS_MS), x: event.clientX, y: event.clientY };
      },
      onPointerMove: (event) => {
        const start = press.current;
        if (start && Math.hypot(event.clientX - start.x, event.clientY - start.y) > LONG_PRESS_SLOP_PX) cancel();
      },
      onPointerEnd: cancel,
      takeContextMenu: (row) => {
        if (lastPointer.current !== 'touch') return false;
        // The browser's long press may come before ours: it is the same gesture, taken once.
        if (!longPressed.current) fire(press.current?.row ?? row);
        return true;
      },
      byTouch: () => lastPointer.current === 'touch',
      clickSource: () => {
        if (lastPointer.current !== 'touch') return 'mouse';
        return longPressed.current ? 'after-long-press' : 'tap';
      },
    }),
    [cancel, fire],
  );
}
