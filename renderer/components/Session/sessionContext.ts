import { createContext, useContext } from 'react';
import type { NimbusBridge } from '../../../shared/ipc';
import type { NimbusClient } from '../../api/client';

export interface SessionApi {
  client: NimbusClient;
  /** 'desktop' inside Electron (the bridge supplies the key), 'browser' otherwise. */
  mode: 'desktop' | 'browser';
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
