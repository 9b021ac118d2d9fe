import { useEffect } from 'react';
import type { Me } from '../../shared/types';
import { accountOf, enterAccount, leaveAccount } from '../lib/appearance';

/** While `me` is signed in, the page wears their own theme and language (renderer/lib/appearance.ts). */
export function useAccountAppearance(me: Me): void {
  const account = accountOf(me);
  useEffect(() => {
    enterAccount(account).catch((error: unknown) => console.warn(error));
    return () => leaveAccount(account);
  }, [account]);
}
