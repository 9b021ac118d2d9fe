import type { Role } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { conflict } from '../errors.js';
import type { StoredRole } from '../store/schema.js';
import { requireRole, toRole } from './records.js';

export const getRole = (ctx: NimbusContext, name: string): Role => toRole(requireRole(ctx, name));

export const listRoles = (ctx: NimbusContext): Role[] => [...ctx.store.roles.values()].map(toRole);

export async function createRole(ctx: NimbusContext, name: string, maxStorage: number, badge: string): Promise<Role> {
  if (ctx.store.roles.has(name)) throw conflict('role_exists', 'Role already exists');
  const role: StoredRole = { name, maxStorage, badge, builtIn: false };
  ctx.store.roles.set(name, role);
  await ctx.store.commit();
  return toRole(role);
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
  const updated: StoredRole = { ...role, name: newName, maxStorage, badge };
  ctx.store.roles.delete(name);
  ctx.store.roles.set(newName, updated);
  if (renaming) {
    for (const [username, user] of ctx.store.users) {
      if (user.role === name) ctx.store.users.set(username, { ...user, role: newName });
    }
  }
  await ctx.store.commit();
  return toRole(updated);
}

export function countHolders(ctx: NimbusContext, roleName: string): number {
  let n = 0;
  for (const user of ctx.store.users.values()) if (user.role === roleName) n++;
  return n;
}
