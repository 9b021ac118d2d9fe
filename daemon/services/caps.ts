/**
 * Caps on what anyone may make the daemon do to others (issue 22; README, "Accounts"), in the
 * style of the reset-mail cap (services/auth.ts) and the sign-in limits: sliding windows per
 * daemon, refused with 429 `too_many_requests` and Retry-After, nothing changed.
 *
 * - Verification mails: at most 5 per address per hour, whichever route sends them
 *   (user.verify, a user's own e-mail change, a registration), so nobody can flood a
 *   stranger's inbox; and at most 10 per hour per user who asks (a user trying address
 *   after address). Admins are held to the per-address cap only.
 * - Registrations: at most 5 per client address per 15 minutes (the sign-in window); each
 *   sends one verification mail, so this is a registering client's per-asker mail cap too.
 */
import type { NimbusContext } from '../context.js';
import { ApiError } from '../errors.js';
import { WindowCap } from '../util/window-cap.js';
import type { Caller } from './keys.js';

const HOUR_MS = 60 * 60 * 1000;
export const VERIFICATION_MAILS_PER_ADDRESS = 5;
export const VERIFICATION_MAILS_PER_ASKER = 10;
export const REGISTRATIONS_PER_ADDRESS = 5;
const REGISTRATION_WINDOW_MS = 15 * 60 * 1000;

/** Who asks for a verification mail, for the per-asker cap: a user's name; null for an admin or a registration (capped as such). */
export type MailAsker = string | null;

/** Who a verification mail is counted against besides its address: a user, never an admin. */
export const mailAsker = (caller: Caller | null): MailAsker => (caller === null || caller.admin ? null : caller.username);

interface Caps {
  mailsByAddress: WindowCap;
  mailsByAsker: WindowCap;
  registrationsByAddress: WindowCap;
}

const capsByDaemon = new WeakMap<NimbusContext, Caps>();

function capsOf(nimbus: NimbusContext): Caps {
  let caps = capsByDaemon.get(nimbus);
  if (!caps)
    capsByDaemon.set(
      nimbus,
      (caps = {
        mailsByAddress: new WindowCap(VERIFICATION_MAILS_PER_ADDRESS, HOUR_MS),
        mailsByAsker: new WindowCap(VERIFICATION_MAILS_PER_ASKER, HOUR_MS),
        registrationsByAddress: new WindowCap(REGISTRATIONS_PER_ADDRESS, REGISTRATION_WINDOW_MS),
      }),
    );
  return caps;
}

const tooManyMails = (wait: number) =>
  new ApiError('too_many_requests', 'Too many verification e-mails for this address; try again later', { 'Retry-After': String(wait) });

/** Addresses are counted without case: `Ana@Example.com` and `ana@example.com` are one inbox. */
const inbox = (email: string) => email.toLowerCase();

/** Refuses (429) a change that would mail `email` a verification link past a cap, before it changes anything; counts nothing. */
export function assertMayMailVerification(nimbus: NimbusContext, email: string, asker: MailAsker): void {
  const caps = capsOf(nimbus);
  const wait = Math.max(caps.mailsByAddress.retryAfter(inbox(email)), asker === null ? 0 : caps.mailsByAsker.retryAfter(asker));
  if (wait > 0) throw tooManyMails(wait);
}

/** Counts one verification mail to `email` against the caps, or refuses it (429) and counts nothing. */
export function takeVerificationMail(nimbus: NimbusContext, email: string, asker: MailAsker): void {
  const caps = capsOf(nimbus);
  const address = inbox(email);
  const wait = caps.mailsByAddress.take(address);
  if (wait > 0) throw tooManyMails(wait);
  const askerWait = asker === null ? 0 : caps.mailsByAsker.take(asker);
  if (askerWait > 0) {
    caps.mailsByAddress.giveBack(address);
    throw tooManyMails(askerWait);
  }
}

/**
 * Takes a place for one registration from `address` (429 past the cap), counted from the
 * start so registrations sent at once cannot slip through; the answer gives it back, for a
 * registration that created nothing.
 */
export function takeRegistration(nimbus: NimbusContext, address: string): () => void {
  const cap = capsOf(nimbus).registrationsByAddress;
  const wait = cap.take(address);
  if (wait > 0)
    throw new ApiError('too_many_requests', 'Too many accounts registered from this address; try again later', {
      'Retry-After': String(wait),
    });
  return () => cap.giveBack(address);
}
