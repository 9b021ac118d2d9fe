import { useEffect, useState } from 'react';

const QUERY = '(max-width: 760px), (pointer: coarse)';

/** Whether the screen is small or touched: rows grow to 44 px targets and more. */
export function useCompact(): boolean {
  const [compact, setCompact] = useState(() => typeof window.matchMedia === 'function' && window.matchMedia(QUERY).matches);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const media = window.matchMedia(QUERY);
    const update = () => setCompact(media.matches);
    media.addEventListener('change', update);
    return () => media.removeEventListener('change', update);
  }, []);
  return compact;
}
