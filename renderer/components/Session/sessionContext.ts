import { createContext, useContext } from 'react';
import type { NimbusBridge } from '../../../shared/ipc';
import type { Me } from '../../../shared/types';
import type { NimbusClient } from '../../api/client';

export type { Me };

export interface SessionApi {
  client: NimbusClient;
  /** 'desktop' inside Electron (the bridge supplies the key), 'browser' otherwise. */
  mode: 'desktop' | 'browser';
  /** 'key': an API key in every request; 'session': the signed-in user's cookie. */
  auth: 'key' | 'session';
  /** Who is signed in (`auth.me`): `user` is null for the admin key and machine keys. */
  me: Me;
  bridge: NimbusBridge | null;
  signOut(): void;
}

export const SessionContext = createContext<SessionApi | null>(null);

export function useSession(): SessionApi {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession needs a <Session>');
  return session;
}

export const useClient = (): NimbusClient => useSession().client;

/**
 * Whether the caller may change things (`auth.me`'s `canWrite`): false for a `read` key, whose
 * changes the daemon refuses, so the explorer leaves them out. Outside a session (a component
 * rendered alone) nothing says otherwise, so it is true.
 */
export const useCanWrite = (): boolean => useContext(SessionContext)?.me.canWrite !== false;
