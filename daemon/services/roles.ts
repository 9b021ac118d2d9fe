import { isOwnBadgePath } from '../../shared/badges.js';
import type { Role } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { conflict } from '../errors.js';
import type { StoredRole } from '../store/schema.js';
import { assertBadgeKept } from './badges.js';
import { requireRole, toRole } from './records.js';

/**
 * A role as the API answers it. A badge stored as a path ("/badges/user.svg", the built-in
 * ones) is on the daemon itself: it is answered as an absolute URL on the daemon's base URL,
 * so DaneeCloud's clients, which expect an http(s) URL, can load it.
 */
function publicRole(nimbus: NimbusContext, role: StoredRole): Role {
  const out = toRole(role);
  return role.badge.startsWith('/') ? { ...out, badge: `${nimbus.baseUrl}${role.badge}` } : out;
}

/**
 * The badge as stored: a URL of the daemon's own badges (a client sending back what it read)
 * goes back to a path, so it keeps working when the daemon's port or address changes. No badge
 * (the parameter left out) is ''; an uploaded picture the daemon does not have is a 400.
 */
function storedBadge(nimbus: NimbusContext, badge: string | undefined): string {
  if (badge === undefined) return '';
  const path = badge.startsWith(`${nimbus.baseUrl}/badges/`) ? badge.slice(nimbus.baseUrl.length) : badge;
  const stored = isOwnBadgePath(path) ? path : badge;
  assertBadgeKept(nimbus, stored);
  return stored;
}

export const getRole = (nimbus: NimbusContext, name: string): Role => publicRole(nimbus, requireRole(nimbus, name));

export const listRoles = (nimbus: NimbusContext): Role[] => [...nimbus.store.roles.values()].map((role) => publicRole(nimbus, role));

export async function createRole(nimbus: NimbusContext, name: string, maxStorage: number, badge: string | undefined): Promise<Role> {
  if (nimbus.store.roles.has(name)) throw conflict('role_exists', 'Role already exists');
  const role: StoredRole = { name, maxStorage, badge: storedBadge(nimbus, badge), builtIn: false };
  nimbus.store.roles.set(name, role);
  await nimbus.store.commit();
  return publicRole(nimbus, role);
}

export async function deleteRole(nimbus: NimbusContext, name: string): Promise<void> {
  const role = requireRole(nimbus, name);
  if (role.builtIn) throw conflict('role_builtin', 'Built-in roles cannot be deleted');
  const holders = countHolders(nimbus, name);
  if (holders > 0) throw conflict('role_in_use', `Role is still assigned to ${holders} user${holders === 1 ? '' : 's'}`);
  nimbus.store.roles.delete(name);
  await nimbus.store.commit();
}

/** Renames a role (moving its users with it) and sets its quota and badge (none when `badge` is undefined). */
export async function editRole(
  nimbus: NimbusContext,
  name: string,
  newName: string,
  maxStorage: number,
  badge: string | undefined,
): Promise<Role> {
  const role = requireRole(nimbus, name);
  const renaming = newName !== name;
  if (renaming && role.builtIn) throw conflict('role_builtin', 'Built-in roles cannot be renamed');
  if (renaming && nimbus.store.roles.has(newName)) throw conflict('role_exists', 'A role with that name already exists');
  const updated: StoredRole = { ...role, name: newName, maxStorage, badge: storedBadge(nimbus, badge) };
  nimbus.store.roles.delete(name);
  nimbus.store.roles.set(newName, updated);
  if (renaming) {
    for (const [username, user] of nimbus.store.users) {
      if (user.role === name) nimbus.store.users.set(username, { ...user, role: newName });
    }
  }
  await nimbus.store.commit();
  return publicRole(nimbus, updated);
}

export function countHolders(nimbus: NimbusContext, roleName: string): number {
  let n = 0;
  for (const user of nimbus.store.users.values()) if (user.role === roleName) n++;
  return n;
}
