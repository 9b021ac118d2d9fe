/**
 * `user.edit` as each caller may make it (docs/accounts.md, "Changing one's own account").
 * The recovery e-mail and the password are what a password reset and a sign-in rest on, so a
 * caller changing either on their OWN account proves it is the person, as auth.password asks:
 * in a signed-in session, with the current password. A personal key never may (whoever holds a
 * copy would own the account for good). An admin editing another user needs no password:
 * DaneeCloud's clients and bot do it with the admin key. Another admin's e-mail and password,
 * though, only the machine's keys change (403 `admin_key_only` for an admin-role user): a
 * stolen admin session must not become every admin account.
 */
import type { ParamsOf } from '../../shared/endpoints.js';
import type { UiLanguage } from '../../shared/languages.js';
import type { User } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { ApiError } from '../errors.js';
import type { LoginThrottle } from './login-throttle.js';
import { confirmSessionPassword } from './auth.js';
import { assertMayMailVerification, mailAsker } from './caps.js';
import { isAdminUser, type Caller } from './keys.js';
import { editUser, getUser } from './users.js';
import { sendVerification } from './verification.js';

/**
 * Changes a user's name, e-mail and password as `caller` may; `address` is the client's, for
 * the sign-in throttle; `lang`, the request's, for the mail a user's own new address gets.
 */
export async function editAccount(
  nimbus: NimbusContext,
  logins: LoginThrottle,
  caller: Caller,
  edit: ParamsOf<'user.edit'>,
  address: string,
  lang: UiLanguage = 'en',
): Promise<User> {
  // A user changes only their own e-mail here: their name is an admin's to change, and their
  // password goes through auth.password, which asks for the current one.
  if (!caller.admin && (edit.newusername !== edit.username || edit.newpassword !== undefined))
    throw new ApiError('admin_only', 'Only an administrator may change a username or set a password; change yours in Settings');
  const before = getUser(nimbus, edit.username).email;
  const own = caller.username !== null && caller.username === edit.username;
  // Another administrator's recovery e-mail or password is the way into their account (a reset
  // mail, a sign-in): an admin-role user, by session or personal key, may not move them; the
  // machine's own keys (the operator's) may, as DaneeCloud's clients do with the admin key.
  if (
    !own &&
    caller.username !== null &&
    isAdminUser(nimbus.store.users.get(edit.username)) &&
    (edit.newemail !== before || edit.newpassword !== undefined)
  )
    throw new ApiError(
      'admin_key_only',
      'Another administrator’s e-mail and password are changed by them, or with the machine’s admin key',
    );
  if (own && (edit.newemail !== before || edit.newpassword !== undefined))
    await confirmOwner(nimbus, logins, caller, edit.password, address);
  // The mail a user's new address gets must be within its caps before anything changes (429).
  if (!caller.admin && edit.newemail !== before) assertMayMailVerification(nimbus, edit.newemail, mailAsker(caller));
  // newpassword is optional: without it the password stays (DaneeCloud's clients always send it).
  const user = await editUser(nimbus, edit.username, edit.newusername, edit.newemail, edit.newpassword);
  // A user's new address must be verified again (an admin's edit leaves the mail to them).
  if (!caller.admin && user.email !== before)
    await sendVerification(nimbus, user.username, mailAsker(caller), lang).catch((err: Error) =>
      nimbus.log(`Nimbus: the verification mail for a changed address could not be sent: ${err.message}`),
    );
  return user;
}

/** The caller is the account's owner at the keyboard: a session that gives the current password. */
async function confirmOwner(
  nimbus: NimbusContext,
  logins: LoginThrottle,
  caller: Caller,
  password: string | undefined,
  address: string,
): Promise<void> {
  if (caller.kind !== 'session' || caller.username === null)
    throw new ApiError(
      'session_required',
      'Changing your recovery e-mail or your password needs a signed-in session and your current password; a key cannot do it',
    );
  await confirmSessionPassword(nimbus, logins, caller, password, address, 'to change your e-mail address or password');
}
