/** `nimbus role list|show|add|edit|delete`: what the API's role endpoints allow, through the API (admin-api.ts). */
import { withAdminApi, type AdminApi } from './admin-api.js';
import { CommandError, operands, printTable, say, type Command } from './common.js';

const HELP = `Usage:
  nimbus role list [--json]                   Every role: name, quota, badge, built-in
  nimbus role show NAME                       One role, as JSON
  nimbus role add NAME --max-storage MB [--badge URL]
                                              Create a role; MB is MiB, -1 or "unlimited" for no limit
  nimbus role edit NAME [--name NEW] [--max-storage MB] [--badge URL]
                                              Rename a role (its users follow) or change its quota or badge
  nimbus role delete NAME                     Delete a role no user has
  nimbus user role USER ROLE                  Give a user a role

The built-in roles (user, admin) cannot be renamed or deleted; their quota and badge can change.
A running daemon on the data directory makes the change (live at once); with none, the
command opens the store itself with the daemon's rules. Write negative sizes as --max-storage=-1.
`;

interface RoleRecord {
  name: string;
  maxStorage: number;
  badge: string;
  builtIn?: boolean;
}

export const roleCommand: Command = {
  help: HELP,
  options: { 'max-storage': { type: 'string' }, badge: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } },
  async run(args, values, input) {
    const [sub, ...rest] = args;
    const maxStorage = values['max-storage'] === undefined ? undefined : parseMaxStorage(String(values['max-storage']));
    const badge = values.badge as string | undefined;
    switch (sub) {
      case 'list':
        operands(rest, 0, 'nimbus role list [--json]');
        return withAdminApi(input, (api) => list(api, values.json === true));
      case 'show': {
        const [name] = operands(rest, 1, 'nimbus role show NAME');
        return withAdminApi(input, async (api) => {
          const role = await api.get<RoleRecord>('/api/role', { name });
          say(JSON.stringify({ ...role, badge: ownBadge(api, role.badge) }, null, 2));
          return 0;
        });
      }
      case 'add': {
        const [name] = operands(rest, 1, 'nimbus role add NAME --max-storage MB [--badge URL]');
        if (maxStorage === undefined) throw new CommandError('--max-storage MB is required (-1 or "unlimited": no limit)');
        return withAdminApi(input, async (api) => {
          // The built-in user badge unless one is given, as before the API made the badge optional (issue 29).
          const role = await api.post<{ role: RoleRecord }>('/api/role/create', {
            name,
            maxStorage: String(maxStorage),
            badge: badge ?? `${api.url}/badges/user.svg`,
          });
          say(`Created the role ${role.role?.name ?? name} (${quota(maxStorage)}) (${api.via}).`);
          return 0;
        });
      }
      case 'edit': {
        const [name] = operands(rest, 1, 'nimbus role edit NAME [--name NEW] [--max-storage MB] [--badge URL]');
        const newName = values.name as string | undefined;
        if (newName === undefined && maxStorage === undefined && badge === undefined)
          throw new CommandError('nothing to change: give --name, --max-storage or --badge');
        return withAdminApi(input, async (api) => {
          // role.edit takes every field: what is not given is sent back as it is.
          const current = await api.get<RoleRecord>('/api/role', { name });
          await api.post('/api/role/edit', {
            name,
            newname: newName ?? name,
            maxStorage: String(maxStorage ?? current.maxStorage),
            badge: badge ?? current.badge,
          });
          say(`Changed the role ${name}${newName && newName !== name ? ` (now ${newName})` : ''} (${api.via}).`);
          return 0;
        });
      }
      case 'delete': {
        const [name] = operands(rest, 1, 'nimbus role delete NAME');
        return withAdminApi(input, async (api) => {
          await api.post('/api/role/delete', { name });
          say(`Deleted the role ${name} (${api.via}).`);
          return 0;
        });
      }
      default:
        throw new CommandError(sub ? `unknown subcommand "${sub}"\n\n${HELP}` : `which one?\n\n${HELP}`);
    }
  },
};

/** MiB as a whole number, or -1 / "unlimited"; anything else is refused before the store is opened. */
function parseMaxStorage(text: string): number {
  if (text === 'unlimited' || text === '-1') return -1;
  if (!/^\d{1,9}$/.test(text)) throw new CommandError(`invalid --max-storage: ${text} (a whole number of MiB, or -1 / unlimited)`);
  return Number(text);
}

const ownBadge = (api: AdminApi, badge: string): string => (badge.startsWith(`${api.url}/badges/`) ? badge.slice(api.url.length) : badge);

const quota = (mb: number): string => (mb < 0 ? 'unlimited' : `${mb} MiB`);

async function list(api: AdminApi, json: boolean): Promise<number> {
  // The daemon's own badges come back as URLs on the address that answered, which for a
  // daemon this command started is a port gone a moment later: shown as paths on the daemon.
  const roles = (await api.get<RoleRecord[]>('/api/role/all')).map((r) => ({ ...r, badge: ownBadge(api, r.badge) }));
  if (json) {
    say(JSON.stringify(roles, null, 2));
    return 0;
  }
  printTable([
    ['ROLE', 'QUOTA', 'BUILT-IN', 'BADGE'],
    ...roles.map((r) => [r.name, quota(r.maxStorage), r.builtIn ? 'yes' : 'no', r.badge]),
  ]);
  return 0;
}
