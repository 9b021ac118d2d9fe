/**
 * The password each test session signed in with, by its cookie (with or without the
 * `nimbus_session=` name): `keys.create` in a session needs the current password
 * (services/auth.ts, `confirmSessionPassword`), and the helpers that make a key in a session
 * send it unless the test gives one itself (the tests of that rule do).
 */
const passwords = new Map<string, string>();

const valueOf = (cookie: string) => cookie.replace(/^nimbus_session=/, '');

export function rememberSessionPassword(cookie: string, password: string): void {
  passwords.set(valueOf(cookie), password);
}

export function sessionPasswordOf(cookie: string | null | undefined): string | undefined {
  return cookie ? passwords.get(valueOf(cookie)) : undefined;
}
