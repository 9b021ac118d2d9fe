import { useCallback, useMemo } from 'react';
import type { Navigate } from '../../hooks/useAppRoute';
import { placeRoute, type Place } from '../../lib/places';
import type { AccountPlace } from '../AccountNav/AccountNav';

/**
 * An admin's own places on top of their sidebar (when signed in as a user): the one open now,
 * how to open one, and their folder tree's open folder. Memoised, as the Sidebar is.
 */
export function useAccountPlaces(view: Place, selfName: string | null, navigate: Navigate) {
  const place: AccountPlace | null =
    view.kind === 'shared' || view.kind === 'settings' || view.kind === 'trash'
      ? view.kind
      : view.kind === 'storage' && view.username === selfName && view.tab === 'files'
        ? 'files'
        : null;
  const openPlace = useCallback((next: AccountPlace) => navigate(placeRoute(next, selfName)), [navigate, selfName]);
  const ownFolder = place === 'files' && view.kind === 'storage' ? view.folder : null;
  const openOwnFolder = useCallback(
    (folder: string) => navigate({ page: 'files', username: selfName ?? '', folder }),
    [navigate, selfName],
  );
  const account = useMemo(
    () =>
      selfName === null
        ? undefined
        : { current: place, onOpen: openPlace, username: selfName, folder: ownFolder, onOpenFolder: openOwnFolder },
    [selfName, place, openPlace, ownFolder, openOwnFolder],
  );
  return { place, account };
}
