import { useCallback, useEffect, useRef, useState, type FocusEvent } from 'react';

/** After the pointer or the focus leaves a toast, it stays at least this long (time to move back). */
export const RESUME_MS = 2_000;

/**
 * Calls `dismiss` after `lifetime` ms (never when null), counting only while the toast is neither
 * hovered nor holding the keyboard focus: a person reading it with a mouse, a keyboard or a
 * screen reader (which moves the focus into it) keeps it on screen as long as they need.
 */
export function useDismissTimer(lifetime: number | null, dismiss: () => void) {
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const remaining = useRef(lifetime);
  const paused = hovered || focused;

  useEffect(() => {
    const left = remaining.current;
    if (left === null || paused) return;
    const started = Date.now();
    const timer = window.setTimeout(dismiss, left);
    return () => {
      window.clearTimeout(timer);
      remaining.current = Math.max(RESUME_MS, left - (Date.now() - started));
    };
  }, [paused, dismiss]);

  const onBlur = useCallback((event: FocusEvent<HTMLElement>) => {
    // Moving between the toast's own buttons is not leaving it.
    if (!event.currentTarget.contains(event.relatedTarget)) setFocused(false);
  }, []);

  return {
    paused,
    handlers: {
      onMouseEnter: () => setHovered(true),
      onMouseLeave: () => setHovered(false),
      onFocus: () => setFocused(true),
      onBlur,
    },
  };
}
