import type { UiLanguage } from '../../shared/languages.js';
import type { MailDelivery } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { invalidToken } from '../errors.js';
import { hashSecret, newSecret } from '../keys/secrets.js';
import { takeVerificationMail, type MailAsker } from './caps.js';
import { mailWords } from './mail-words.js';
import { catchUpOnMiss, requireUser } from './records.js';

const VALID_MS = 24 * 60 * 60 * 1000;

/**
 * Creates a verification token (only its hash is stored) and mails the link, in `lang` (the
 * language of the person's own request; English when someone else asked); 429 past the caps
 * on verification mails (services/caps.ts) for the address and for `asker`.
 */
export async function sendVerification(
  nimbus: NimbusContext,
  username: string,
  asker: MailAsker = null,
  lang: UiLanguage = 'en',
): Promise<{ delivery: MailDelivery }> {
  const user = requireUser(nimbus, username);
  takeVerificationMail(nimbus, user.email, asker);
  const token = newSecret();
  for (const [hash, v] of nimbus.store.verifications) if (v.username === username) nimbus.store.verifications.delete(hash);
  const hash = hashSecret(token);
  nimbus.store.verifications.set(hash, { hash, username, email: user.email, expiresAt: new Date(Date.now() + VALID_MS).toISOString() });
  await nimbus.store.commit();
  const link = `${nimbus.baseUrl}/verify?token=${token}`;
  const w = mailWords(lang);
  const sent = await nimbus.mailer.send({
    to: user.email,
    language: lang,
    subject: w.verifySubject,
    text: `${w.hello(user.username)}\n\n${w.verifyLead}\n\n${link}\n\n${w.verifyValid}\n`,
    html: `<p>${escapeHtml(w.hello(user.username))}</p><p><a href="${link}">${escapeHtml(w.verifyButton)}</a></p><p>${escapeHtml(w.verifyValid)}</p>`,
  });
  return { delivery: sent.delivery };
}

/** Whether a token would confirm an address now, as far as this daemon knows. */
function validHere(nimbus: NimbusContext, hash: string): boolean {
  const entry = nimbus.store.verifications.get(hash);
  const user = entry ? nimbus.store.users.get(entry.username) : undefined;
  return !!entry && !!user && Date.parse(entry.expiresAt) >= Date.now() && user.email === entry.email;
}

/**
 * A link mailed by another daemon a moment ago: its token, its user or the address it was sent
 * to may not be here yet, so a token that does not confirm here is looked at again caught up.
 */
const catchUpUnlessValid = (nimbus: NimbusContext, hash: string) => catchUpOnMiss(nimbus, () => validHere(nimbus, hash));

/** Whether a token would confirm an address now, without using it (for HEAD, which must change nothing). */
export async function isVerificationValid(nimbus: NimbusContext, token: string): Promise<boolean> {
  const hash = hashSecret(token);
  await catchUpUnlessValid(nimbus, hash);
  return validHere(nimbus, hash);
}

/** Marks the e-mail verified; a token works once, for 24 hours, for the address it was sent to. */
export async function confirmVerification(nimbus: NimbusContext, token: string): Promise<string> {
  const hash = hashSecret(token);
  await catchUpUnlessValid(nimbus, hash);
  const entry = nimbus.store.verifications.get(hash);
  const user = entry ? nimbus.store.users.get(entry.username) : undefined;
  if (!entry || !user || Date.parse(entry.expiresAt) < Date.now() || user.email !== entry.email) {
    if (entry && Date.parse(entry.expiresAt) < Date.now()) nimbus.store.verifications.delete(hash);
    throw invalidToken('This link has expired or was already used', 404);
  }
  nimbus.store.verifications.delete(hash);
  nimbus.store.users.set(user.username, { ...user, emailVerified: true });
  await nimbus.store.commit();
  return user.username;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
