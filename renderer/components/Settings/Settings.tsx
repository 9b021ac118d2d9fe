import { useEffect } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { User } from '../../../shared/types';
import type { LiveState } from '../../hooks/useLiveEvents';
import { StatusBar } from '../StatusBar/StatusBar';
import { EmailSection } from './EmailSection';
import { KeysSection } from './KeysSection';
import { LanguageSection } from './LanguageSection';
import { PasswordSection } from './PasswordSection';
import { SessionsSection } from './SessionsSection';
import './Settings.css';

/** The signed-in user's own account: language, e-mail, password, sessions and personal keys. */
export function Settings({ user, live }: { user: User; live: LiveState }) {
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
              <Trans i18nKey="settings:account" values={{ name: user.username }} components={{ strong: <strong /> }} />
            </p>
          </header>
          <LanguageSection />
          <EmailSection user={user} />
          <PasswordSection />
          <SessionsSection />
          <KeysSection username={user.username} />
        </div>
      </div>
      <StatusBar summary="" live={live} />
    </section>
  );
}
