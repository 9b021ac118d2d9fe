import { useEffect } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { User } from '../../../shared/types';
import type { LiveState } from '../../hooks/useLiveEvents';
import { StatusBar } from '../StatusBar/StatusBar';
import { AppearanceSection } from './AppearanceSection';
import { EmailSection } from './EmailSection';
import { KeysSection } from './KeysSection';
import { PasswordSection } from './PasswordSection';
import { SessionsSection } from './SessionsSection';
import './Settings.css';

/**
 * The signed-in person's settings: appearance (theme and language), and for a user their
 * account's e-mail, password, sessions and personal keys. A session with a key and no user
 * (the admin key) has only the appearance: the rest belongs to a user record.
 */
export function Settings({ user, live }: { user: User | null; live: LiveState }) {
  const { t } = useTranslation();
  useEffect(() => {
    document.title = t('settings:windowTitle');
  }, [t]);
  return (
    <section className="settings" aria-labelledby="settings-title">
      <div className="settings__scroll">
        <div className="settings__column">
          <header className="page-header settings__header">
            <h1 id="settings-title">{t('settings:title')}</h1>
            <p>
              {user ? (
                <Trans i18nKey="settings:account" values={{ name: user.username }} components={{ strong: <strong /> }} />
              ) : (
                t('settings:keySession')
              )}
            </p>
          </header>
          <AppearanceSection />
          {user ? (
            <>
              <EmailSection user={user} />
              <PasswordSection />
              <SessionsSection />
              <KeysSection username={user.username} />
            </>
          ) : null}
        </div>
      </div>
      <StatusBar summary="" live={live} />
    </section>
  );
}
