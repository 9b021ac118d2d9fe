import { useCallback, useEffect, useState } from 'react';
import { appRouteUrl, parseAppRoute, type AppRoute } from '../../shared/app-routes';

/**
 * Where the person is, kept in the address bar (shared/app-routes.ts): the URL is the source
 * of truth, so Back, Forward, a reload and a bookmark land where they were. `focusList`: the
 * place was reached by moving between folders (or through the history), so the explorer's
 * list takes the keyboard focus.
 */
export interface RouteState {
  route: AppRoute;
  focusList: boolean;
}

export interface Navigate {
  /** Goes to `route`: a new history entry, or with `replace` the current one changed (a search being typed). */
  (route: AppRoute, options?: { replace?: boolean; focusList?: boolean }): void;
}

/** The page's route; a path that is none of the UI's (index.html by its name) is the start page. */
function currentRoute(): AppRoute {
  return parseAppRoute(window.location.pathname, window.location.search) ?? { page: 'home' };
}

/** The route of the address bar, and how to move to another. */
export function useAppRoute(): RouteState & { navigate: Navigate } {
  const [state, setState] = useState<RouteState>(() => ({ route: currentRoute(), focusList: false }));

  useEffect(() => {
    const onPopState = () => setState({ route: currentRoute(), focusList: true });
    window.addEventListener('popstate', onPopState);
    return () => window.removeEventListener('popstate', onPopState);
  }, []);

  const navigate = useCallback<Navigate>((route, options = {}) => {
    const url = appRouteUrl(route);
    const here = `${window.location.pathname}${window.location.search}`;
    // Opening the place one is at adds no entry to go Back through.
    if (url !== here) {
      if (options.replace) window.history.replaceState(null, '', url);
      else window.history.pushState(null, '', url);
    }
    setState({ route, focusList: options.focusList === true });
  }, []);

  return { ...state, navigate };
}
