import { useEffect, useState, type ReactNode } from 'react';
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

const TITLES: Record<Form, string> = {
  password: 'Sign in to Nimbus',
  key: 'Sign in with a key',
  forgot: 'Reset your password',
  register: 'Create an account',
};

/** Browser mode's front door: username and password, with the password reset, registration and an admin's API key behind links. */
export function SignIn({ client, initialForm, message, goodNews, verifyKey, onSignedIn }: SignInProps) {
  const [form, setForm] = useState<Form>(initialForm);
  // "Create an account" shows only where the daemon takes new accounts (NIMBUS_REGISTRATION=open).
  const [registrationOpen, setRegistrationOpen] = useState(false);
  useEffect(() => {
    let live = true;
    client
      .call('auth.options', {})
      .then((options) => live && setRegistrationOpen(options.registration === 'open'))
      .catch(() => undefined); // an older daemon, or none: no link
    return () => {
      live = false;
    };
  }, [client]);
  const [notice, setNotice] = useState<string | null>(message);
  useEffect(() => {
    document.title = `${TITLES[form]} — Nimbus`;
  }, [form]);
  const go = (next: Form, note: string | null = null) => {
    setNotice(note);
    setForm(next);
  };

  let body: ReactNode;
  if (form === 'key') {
    body = <KeyForm message={notice} verify={verifyKey} onSignedIn={(key, me) => onSignedIn({ auth: 'key', key, me })} />;
  } else if (form === 'forgot') {
    body = <ForgotForm client={client} />;
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
        <img className="signin__logo" src="./nimbus.svg" alt="" width={56} height={56} />
        <h1 id="signin-title">{TITLES[form]}</h1>
        {body}
        <nav className="signin__links" aria-label="Other ways in">
          {form !== 'password' ? (
            <button type="button" className="link-button" onClick={() => go('password')}>
              {form === 'key' ? 'Use a username and password' : 'Back to sign in'}
            </button>
          ) : null}
          {form === 'password' && registrationOpen ? (
            <button type="button" className="link-button" onClick={() => go('register')}>
              Create an account
            </button>
          ) : null}
          {form !== 'key' ? (
            <button type="button" className="link-button link-button--small" onClick={() => go('key')}>
              Use an API key
            </button>
          ) : null}
        </nav>
      </div>
    </main>
  );
}
