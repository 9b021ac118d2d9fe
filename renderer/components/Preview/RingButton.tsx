import { useTranslation } from 'react-i18next';
import { ChevronLeft, ChevronRight } from 'lucide-react';

interface RingButtonProps {
  direction: 'previous' | 'next';
  /** The index it goes to; null at that end of the ring. */
  target: number | null;
  onGo: (index: number) => void;
}

/** The arrow beside the preview to the previous or the next file. */
export function RingButton({ direction, target, onGo }: RingButtonProps) {
  const { t } = useTranslation();
  const Icon = direction === 'previous' ? ChevronLeft : ChevronRight;
  return (
    <button
      type="button"
      className={`preview__nav preview__nav--${direction}`}
      aria-label={t(`preview:${direction}`)}
      title={t(`preview:${direction}`)}
      // aria-disabled, not disabled: a disabled button loses focus, and it would fall to the page.
      aria-disabled={target === null}
      onClick={() => target !== null && onGo(target)}
    >
      <Icon size={28} aria-hidden="true" />
    </button>
  );
}
