/** The handlers of users, roles, keys and the auth API (docs/accounts.md). */
import type { EndpointId } from '../../shared/endpoints.js';
import * as keys from '../services/keys.js';
import * as roles from '../services/roles.js';
import * as users from '../services/users.js';
import * as auth from '../services/auth.js';
import { editAccount } from '../services/account-edits.js';
import { mailAsker } from '../services/caps.js';
import { confirmReset, requestReset } from '../services/password-reset.js';
import { sendVerification } from '../services/verification.js';
import { ApiError } from '../errors.js';
import { BADGE_HANDLERS } from './badge-upload.js';
import { clearSessionCookie, sessionCookie } from './cookies.js';
import { clientOf, paged, signedIn, type HandlerTable } from './handler-support.js';
import { readerLanguage } from './page-words.js';

type AccountRow = Extract<EndpointId, `user.${string}` | `role.${string}` | `keys.${string}` | `auth.${string}`>;

export const ACCOUNT_HANDLERS: HandlerTable<AccountRow> = {
  'user.get': ({ nimbus, params }) => users.getUser(nimbus, params.username),
  'user.all': ({ nimbus, ctx, page: pg }) => paged(ctx, users.listUsers(nimbus), pg),
  'user.create': async ({ nimbus, params }) => ({
    msg: 'User created',
    user: await users.createUser(nimbus, params.username, params.email, params.password),
  }),
  'user.delete': async ({ nimbus, params }) => {
    await users.deleteUser(nimbus, params.username);
    return { msg: 'User deleted' };
  },
  'user.edit': async ({ nimbus, params, caller, ctx, logins }) => ({
    msg: 'User updated',
    user: await editAccount(nimbus, logins, signedIn(caller), params, clientOf(ctx).address, readerLanguage(ctx)),
  }),
  'user.verify': async ({ nimbus, params, caller, ctx }) => {
    // In the asker's language when it is their own address; an admin's resend is in English (whose language is unknown).
    const lang = caller?.username === params.username ? readerLanguage(ctx) : 'en';
    const { delivery } = await sendVerification(nimbus, params.username, mailAsker(caller), lang);
    return { msg: delivery === 'smtp' ? 'Verification e-mail sent' : 'Verification e-mail written to the outbox', delivery };
  },
  'user.role': async ({ nimbus, params }) => ({
    msg: 'Role changed',
    user: await users.setUserRole(nimbus, params.username, params.name),
  }),
  'role.get': ({ nimbus, params, caller }) => {
    // A user may read their own role only; another name is as a role that does not exist.
    const me = signedIn(caller);
    if (!me.admin && nimbus.store.users.get(me.username ?? '')?.role !== params.name)
      throw new ApiError('role_not_found', 'Role not found');
    return roles.getRole(nimbus, params.name);
  },
  'role.all': ({ nimbus, ctx, page: pg }) => paged(ctx, roles.listRoles(nimbus), pg),
  'role.create': async ({ nimbus, params }) => ({
    msg: 'Role created',
    role: await roles.createRole(nimbus, params.name, params.maxStorage, params.badge),
  }),
  'role.delete': async ({ nimbus, params }) => {
    await roles.deleteRole(nimbus, params.name);
    return { msg: 'Role deleted' };
  },
  'role.edit': async ({ nimbus, params }) => ({
    msg: 'Role updated',
    role: await roles.editRole(nimbus, params.name, params.newname, params.maxStorage, params.badge),
  }),
  ...BADGE_HANDLERS,
  'keys.list': ({ nimbus, caller }) => ({ keys: keys.listKeys(nimbus, signedIn(caller)) }),
  'keys.create': async ({ nimbus, params, ctx, caller, logins }) => {
    const maker = signedIn(caller);
    await auth.confirmSessionPassword(nimbus, logins, maker, params.password, clientOf(ctx).address, 'to make a key while signed in');
    const created = await keys.createKey(nimbus, maker, params.label, params.scope, params.dialect ?? 'nimbus');
    return { msg: 'Key created; it is shown only this once', ...created };
  },
  'keys.delete': async ({ nimbus, params, caller }) => {
    await keys.deleteKey(nimbus, signedIn(caller), params.label, params.username);
    return { msg: 'Key deleted' };
  },
  'keys.rotate': async ({ nimbus }) => ({ msg: 'Admin key replaced; it is shown only this once', key: await keys.rotateAdminKey(nimbus) }),
  // The auth API (docs/accounts.md): the cookie is set and cleared here, the rest is services/auth.ts.
  'auth.login': async ({ nimbus, params, ctx, logins }) => {
    const { token, me } = await auth.login(nimbus, logins, params.username, params.password, clientOf(ctx));
    ctx.set('Set-Cookie', sessionCookie(token, nimbus.config.publicUrl));
    return me;
  },
  'auth.logout': async ({ nimbus, ctx, caller }) => {
    await auth.logout(nimbus, signedIn(caller));
    ctx.set('Set-Cookie', clearSessionCookie(nimbus.config.publicUrl));
    return { msg: 'Signed out' };
  },
  'auth.me': ({ nimbus, caller }) => auth.me(nimbus, signedIn(caller)),
  'auth.password': async ({ nimbus, params, ctx, caller, logins }) => {
    await auth.changePassword(nimbus, logins, signedIn(caller), params.password, params.newpassword, clientOf(ctx).address);
    return { msg: 'Password changed; your other sessions were signed out' };
  },
  'auth.reset': async ({ nimbus, params, ctx }) => {
    await requestReset(nimbus, params.username, params.email, readerLanguage(ctx));
    return { msg: 'If that account exists and has an e-mail address, a reset link is on its way' };
  },
  'auth.reset.confirm': async ({ nimbus, params }) => {
    await confirmReset(nimbus, params.token, params.newpassword);
    return { msg: 'Password changed; sign in with the new one' };
  },
  'auth.register': async ({ nimbus, params, ctx }) => {
    const { token, user } = await auth.register(nimbus, params.username, params.email, params.password, clientOf(ctx), readerLanguage(ctx));
    ctx.set('Set-Cookie', sessionCookie(token, nimbus.config.publicUrl));
    return { msg: 'Account created; a verification e-mail is on its way', user };
  },
  // Whether mail leaves by SMTP says where a reset link went; never the outbox's path (this is public).
  'auth.options': ({ nimbus }) => ({
    registration: nimbus.config.registration,
    requireVerified: nimbus.config.requireVerified,
    mailDelivery: nimbus.mailer.delivery,
  }),
  'auth.sessions': ({ nimbus, caller }) => ({ sessions: auth.listSessions(nimbus, signedIn(caller)) }),
  'auth.sessions.delete': async ({ nimbus, params, caller }) => {
    await auth.endSession(nimbus, signedIn(caller), params.id);
    return { msg: 'Session ended' };
  },
};
