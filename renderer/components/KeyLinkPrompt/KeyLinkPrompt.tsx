import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { KeyRound } from 'lucide-react';
import { checkKey } from '../Session/browserStart';
import { useSession, type Me } from '../Session/sessionContext';
import { useToast } from '../Toasts/toastContext';
import './KeyLinkPrompt.css';

interface KeyLinkPromptProps {
  /** The key a link put in the fragment; the page does not use it unless the person switches. */
  offeredKey: string;
  onStay: () => void;
  /** Ends the current identity, then makes the page the key's. */
  onSwitch: (key: string, me: Me) => Promise<void>;
}

/** The same account: the same user. An admin key or a machine key has no user, so it is never the same as another. */
const sameAccount = (a: Me, b: Me): boolean => a.user !== null && b.user !== null && a.user.username === b.user.username;

/**
 * Asks a signed-in person whether to switch to the account of a key that came in a link
 * (`#key=…`), naming both accounts; the page stays as it is meanwhile. Not modal: the page
 * works as before until they choose. The link's key is sent once, to `auth.me`, to learn
 * whose it is; a key of the same account is dropped without asking, a refused one with a toast.
 */
export function KeyLinkPrompt({ offeredKey, onStay, onSwitch }: KeyLinkPromptProps) {
  const { t } = useTranslation();
  const { client, me: current } = useSession();
  const { error: toastError } = useToast();
  const [offered, setOffered] = useState<Me | null>(null);
  const [switching, setSwitching] = useState(false);
  const titleId = useId();
  const textId = useId();
  const stayRef = useRef<HTMLButtonElement>(null);
  const baseUrl = client.connection.baseUrl;

  useEffect(() => {
    let live = true;
    void checkKey(baseUrl, offeredKey).then((me) => {
      if (!live) return;
      if (typeof me === 'string') {
        toastError(t('shell:keyLink.notUsed'), me);
        onStay();
      } else if (sameAccount(me, current)) onStay();
      else setOffered(me);
    });
    return () => {
      live = false;
    };
  }, [baseUrl, offeredKey, current, onStay, toastError, t]);

  // The focus goes to staying, the safe answer: a key pressed by habit never switches.
  useEffect(() => {
    if (offered) stayRef.current?.focus({ preventScroll: true });
  }, [offered]);

  if (!offered) return null;
  const name = offered.user?.username ?? null;
  const currentName = current.user?.username ?? null;

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key !== 'Escape' || switching) return;
    event.stopPropagation();
    onStay();
  }

  return (
    <div className="key-link" role="dialog" aria-modal="false" aria-labelledby={titleId} aria-describedby={textId} onKeyDown={onKeyDown}>
      <KeyRound className="key-link__icon" size={20} aria-hidden="true" />
      <div className="key-link__body">
        <h2 id={titleId} className="key-link__title">
          {name !== null ? t('shell:keyLink.titleUser', { name }) : t('shell:keyLink.titleKey')}
        </h2>
        <p id={textId} className="key-link__text">
          {currentName !== null ? t('shell:keyLink.currentUser', { name: currentName }) : t('shell:keyLink.currentKey')}{' '}
          {t('shell:keyLink.trust')}
        </p>
        <div className="key-link__actions">
          <button ref={stayRef} type="button" className="button button--primary" disabled={switching} onClick={onStay}>
            {currentName !== null ? t('shell:keyLink.stayUser', { name: currentName }) : t('shell:keyLink.stayKey')}
          </button>
          <button
            type="button"
            className="button"
            disabled={switching}
            onClick={() => {
              setSwitching(true);
              void onSwitch(offeredKey, offered);
            }}
          >
            {name !== null ? t('shell:keyLink.switchUser', { name }) : t('shell:keyLink.switchKey')}
          </button>
        </div>
      </div>
    </div>
  );
}
