import { useEffect } from 'react';
import type { User } from '../../../shared/types';
import type { LiveState } from '../../hooks/useLiveEvents';
import { StatusBar } from '../StatusBar/StatusBar';
import { EmailSection } from './EmailSection';
import { KeysSection } from './KeysSection';
import { PasswordSection } from './PasswordSection';
import { SessionsSection } from './SessionsSection';
import './Settings.css';

/** The signed-in user's own account: e-mail, password, sessions and personal keys. */
export function Settings({ user, live }: { user: User; live: LiveState }) {
  useEffect(() => {
    document.title = 'Settings — Nimbus';
  }, []);
  return (
    <section className="settings" aria-labelledby="settings-title">
      <div className="settings__scroll">
        <div className="settings__column">
          <header className="page-header settings__header">
            <h1 id="settings-title">Settings</h1>
            <p>
              Your account, <strong>{user.username}</strong>.
            </p>
          </header>
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
