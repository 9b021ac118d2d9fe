import type { Role } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { conflict } from '../errors.js';
import type { StoredRole } from '../store/schema.js';
import { requireRole, toRole } from './records.js';

/**
 * A role as the API answers it. A badge stored as a path ("/badges/user.svg", the built-in
 * ones) is on the daemon itself: it is answered as an absolute URL on the daemon's base URL,
 * so DaneeCloud's clients, which expect an http(s) URL, can load it.
 */
function publicRole(ctx: NimbusContext, role: StoredRole): Role {
  const out = toRole(role);
  return role.badge.startsWith('/') ? { ...out, badge: `${ctx.baseUrl}${role.badge}` } : out;
}

/**
 * The badge as stored: a URL of the daemon's own badges (a client sending back what it read)
 * goes back to a path, so it keeps working when the daemon's port or address changes.
 */
function storedBadge(ctx: NimbusContext, badge: string): string {
  const own = `${ctx.baseUrl}/badges/`;
  return badge.startsWith(own) && /^[a-z]+\.svg$/.test(badge.slice(own.length)) ? badge.slice(ctx.baseUrl.length) : badge;
}

export const getRole = (ctx: NimbusContext, name: string): Role => publicRole(ctx, requireRole(ctx, name));

export const listRoles = (ctx: NimbusContext): Role[] => [...ctx.store.roles.values()].map((role) => publicRole(ctx, role));

export async function createRole(ctx: NimbusContext, name: string, maxStorage: number, badge: string): Promise<Role> {
  if (ctx.store.roles.has(name)) throw conflict('role_exists', 'Role already exists');
  const role: StoredRole = { name, maxStorage, badge: storedBadge(ctx, badge), builtIn: false };
  ctx.store.roles.set(name, role);
  await ctx.store.commit();
  return publicRole(ctx, role);
}

export async function deleteRole(ctx: NimbusContext, name: string): Promise<void> {
  const role = requireRole(ctx, name);
  if (role.builtIn) throw conflict('role_builtin', 'Built-in roles cannot be deleted');
  const holders = countHolders(ctx, name);
  if (holders > 0) throw conflict('role_in_use', `Role is still assigned to ${holders} user${holders === 1 ? '' : 's'}`);
  ctx.store.roles.delete(name);
  await ctx.store.commit();
}

/** Renames a role (moving its users with it) and sets its quota and badge. */
export async function editRole(ctx: NimbusContext, name: string, newName: string, maxStorage: number, badge: string): Promise<Role> {
  const role = requireRole(ctx, name);
  const renaming = newName !== name;
  if (renaming && role.builtIn) throw conflict('role_builtin', 'Built-in roles cannot be renamed');
  if (renaming && ctx.store.roles.has(newName)) throw conflict('role_exists', 'A role with that name already exists');
  const updated: StoredRole = { ...role, name: newName, maxStorage, badge: storedBadge(ctx, badge) };
  ctx.store.roles.delete(name);
  ctx.store.roles.set(newName, updated);
  if (renaming) {
    for (const [username, user] of ctx.store.users) {
      if (user.role === name) ctx.store.users.set(username, { ...user, role: newName });
    }
  }
  await ctx.store.commit();
  return publicRole(ctx, updated);
}

export function countHolders(ctx: NimbusContext, roleName: string): number {
  let n = 0;
  for (const user of ctx.store.users.values()) if (user.role === roleName) n++;
  return n;
}
