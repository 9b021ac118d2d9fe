import type { QueryMeta } from '@tanstack/react-query';
import { ApiError } from './client';

/**
 * A query's `meta` when the view that shows it says its failure in place (the daemon's
 * message where the list would be): the session's "Could not load data" toast then stays
 * away, so the same message is never on screen twice.
 */
export const ERROR_SHOWN_IN_PLACE: QueryMeta = { errorShownInPlace: true };

/** Whether a query's failure gets the session's toast (ReadySession's query cache). */
export function toastsLoadError(error: unknown, meta: QueryMeta | undefined): boolean {
  if (meta?.errorShownInPlace === true) return false;
  // 401 signs out; an unreachable daemon is shown by the status bar, not a toast per refetch.
  return !(error instanceof ApiError && (error.status === 401 || error.code === 'unreachable'));
}
