import { useEffect, useState } from 'react';

/** `value`, once it has stayed the same for `delayMs` (typing into the search box asks once per pause). An empty value is at once. */
export function useDebounced<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    if (value === '' || value === null) {
      setSettled(value);
      return;
    }
    const timer = window.setTimeout(() => setSettled(value), delayMs);
    return () => window.clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
