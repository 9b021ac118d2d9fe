import { useTranslation } from 'react-i18next';
import { useEffect, useState, type ReactNode } from 'react';
import type { MailDelivery } from '../../../shared/types';
import type { NimbusClient } from '../../api/client';
import type { Me } from '../Session/sessionContext';
import { ForgotForm } from './ForgotForm';
import { KeyForm } from './KeyForm';
import { PasswordForm } from './PasswordForm';
import { RegisterForm } from './RegisterForm';
import './SignIn.css';

/** The form the sign-in page opens on: a person's password, or (for admins) an API key. */
export type SignInForm = 'password' | 'key';
type Form = SignInForm | 'forgot' | 'register';

/** How a person got in: with a key (kept for the tab) or a session (the cookie the daemon set). */
export type SignedIn = { auth: 'key'; key: string; me: Me } | { auth: 'session'; me: Me };

interface SignInProps {
  /** A client without a key, for the public sign-in calls. */
  client: NimbusClient;
  initialForm: SignInForm;
  /** Why the page is shown (a session ended, a key refused, a password changed), if not a first visit. */
  message: string | null;
  /** Something that went right before the page opened (a password reset). */
  goodNews: string | null;
  /** Who a key signs in as, or an error message. */
  verifyKey: (key: string) => Promise<Me | string>;
  onSignedIn: (result: SignedIn) => void;
}

/** Browser mode's front door: username and password, with the password reset, registration and an admin's API key behind links. */
export function SignIn({ client, initialForm, message, goodNews, verifyKey, onSignedIn }: SignInProps) {
  const { t } = useTranslation();
  const [form, setForm] = useState<Form>(initialForm);
  // "Create an account" shows only where the daemon takes new accounts (NIMBUS_REGISTRATION=open).
  const [registrationOpen, setRegistrationOpen] = useState(false);
  // Where a reset link goes: with no SMTP it is written to the outbox on the server, and the page must not promise a mail.
  const [mailDelivery, setMailDelivery] = useState<MailDelivery | null>(null);
  useEffect(() => {
    let live = true;
    client
      .call('auth.options', {})
      .then((options) => {
        if (!live) return;
        setRegistrationOpen(options.registration === 'open');
        setMailDelivery(options.mailDelivery ?? null);
      })
      .catch(() => undefined); // an older daemon, or none: no link
    return () => {
      live = false;
    };
  }, [client]);
  const [notice, setNotice] = useState<string | null>(message);
  const titles: Record<Form, string> = {
    password: t('signin:title.password'),
    key: t('signin:title.key'),
    forgot: t('signin:title.forgot'),
    register: t('signin:title.register'),
  };
  const title = titles[form];
  useEffect(() => {
    document.title = t('signin:windowTitle', { title });
  }, [t, title]);
  const go = (next: Form, note: string | null = null) => {
    setNotice(note);
    setForm(next);
  };

  let body: ReactNode;
  if (form === 'key') {
    body = <KeyForm message={notice} verify={verifyKey} onSignedIn={(key, me) => onSignedIn({ auth: 'key', key, me })} />;
  } else if (form === 'forgot') {
    body = <ForgotForm client={client} mailDelivery={mailDelivery} />;
  } else if (form === 'register') {
    body = (
      <RegisterForm
        client={client}
        onRegistered={(me) => onSignedIn({ auth: 'session', me })}
        onClosed={(why) => {
          setRegistrationOpen(false);
          go('password', why);
        }}
      />
    );
  } else {
    body = (
      <PasswordForm
        client={client}
        message={notice}
        goodNews={goodNews}
        onSignedIn={(me) => onSignedIn({ auth: 'session', me })}
        onForgot={() => go('forgot')}
      />
    );
  }

  return (
    <main className="signin">
      <div className="signin__card">
        <img className="signin__logo" src="/nimbus.svg" alt="" width={56} height={56} />
        <h1 id="signin-title">{title}</h1>
        {body}
        <nav className="signin__links" aria-label={t('signin:links.label')}>
          {form !== 'password' ? (
            <button type="button" className="link-button" onClick={() => go('password')}>
              {form === 'key' ? t('signin:links.usePassword') : t('signin:links.back')}
            </button>
          ) : null}
          {form === 'password' && registrationOpen ? (
            <button type="button" className="link-button" onClick={() => go('register')}>
              {t('signin:links.register')}
            </button>
          ) : null}
          {form !== 'key' ? (
            <button type="button" className="link-button link-button--small" onClick={() => go('key')}>
              {t('signin:links.useKey')}
            </button>
          ) : null}
        </nav>
      </div>
    </main>
  );
}
