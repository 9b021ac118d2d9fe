import type { ReactNode } from 'react';
import type { LucideIcon } from 'lucide-react';
import { errorMessage } from '../../api/client';
import { EmptyState } from '../EmptyState/EmptyState';

interface ListStateProps {
  icon: LucideIcon;
  /** What to say while the first answer has not come (null once it has). */
  loading: string | null;
  /** Why the list could not load, when there is nothing else to show; `action` offers to try again. */
  failed: { title: string; error: unknown; action?: ReactNode } | null;
  /** What to say when the list loaded and holds nothing. */
  empty: { title: string; text: string } | null;
  /** The list itself, shown once it has loaded and holds something. */
  children: ReactNode;
}

/** What a page that lists things shows in turn: loading, why it failed, that it is empty, or the list. */
export function ListState({ icon, loading, failed, empty, children }: ListStateProps) {
  if (loading !== null) {
    return (
      <div className="shell__loading" role="status">
        {loading}
      </div>
    );
  }
  if (failed) {
    return (
      <EmptyState icon={icon} title={failed.title} action={failed.action}>
        {errorMessage(failed.error)}
      </EmptyState>
    );
  }
  if (empty) {
    return (
      <EmptyState icon={icon} title={empty.title}>
        {empty.text}
      </EmptyState>
    );
  }
  return children;
}
