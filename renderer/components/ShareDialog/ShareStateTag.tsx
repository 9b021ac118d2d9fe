import { Ban, CalendarX, CircleCheck, type LucideIcon } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import type { ShareState } from '../../../shared/types';

const LOOK: Record<ShareState, { icon: LucideIcon; tone: string }> = {
  active: { icon: CircleCheck, tone: 'success' },
  expired: { icon: CalendarX, tone: 'warning' },
  exhausted: { icon: Ban, tone: 'danger' },
};

/** A link's state as a tag: its word and its own icon, never its colour alone (Active, Expired, Used up). */
export function ShareStateTag({ state }: { state: ShareState }) {
  const { t } = useTranslation();
  const { icon: Icon, tone } = LOOK[state] ?? LOOK.active;
  return (
    <span className={`tag tag--${tone} share-state`} data-state={state}>
      <Icon size={12} aria-hidden="true" />
      {t(`share:state.${state}`)}
    </span>
  );
}
