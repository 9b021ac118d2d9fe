/** `nimbus user add|list|passwd|delete|role`: accounts, through the API (admin-api.ts says which daemon answers). */
import { withAdminApi, type AdminApi } from './admin-api.js';
import { CommandError, operands, printTable, say, warn, type Command } from './common.js';
import { promptLine, readNewPassword } from './password-input.js';

const HELP = `Usage:
  nimbus user list [--json]                  Every user: name, role, e-mail, verified, storage used
  nimbus user add NAME --email ADDRESS [--role ROLE] [--password-stdin]
                                             Create a user (an existing storage folder of that name is adopted)
  nimbus user passwd NAME [--password-stdin] Set a user's password (ends their sessions)
  nimbus user role NAME ROLE                 Give a user a role
  nimbus user delete NAME [--yes]            Delete a user with their files, shares, keys and trash

Passwords are never taken from the command line: on a terminal they are asked twice without
echo; --password-stdin reads the first line of standard input instead
(e.g. \`printf '%s\\n' "$PW" | nimbus user add ana --email ana@example.com --password-stdin\`).
The daemon's rules apply: names of letters, digits, '.', '_', '-'; passwords of at least 8
characters that are not common ones.

With a daemon running on the data directory (--data-dir, NIMBUS_DATA_DIR) the change goes
through its API with the admin key and is live at once; with none, the command opens the
store itself (db.json, or NIMBUS_DATABASE_URL) under the daemon's lock, with the same rules.
`;

interface UserRecord {
  username: string;
  email: string;
  role: string;
  emailVerified?: boolean;
  /** The `daneecloud` admin dialect's name for it (NIMBUS_ADMIN_DIALECT). */
  isVerified?: boolean;
  usage?: { usedBytes: number; maxBytes: number | null; overQuota: boolean };
  usedStorage?: number;
}

export const userCommand: Command = {
  help: HELP,
  options: {
    email: { type: 'string' },
    role: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    yes: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  async run(args, values, input) {
    const [sub, ...rest] = args;
    const fromStdin = values['password-stdin'] === true;
    switch (sub) {
      case 'list':
        operands(rest, 0, 'nimbus user list [--json]');
        return withAdminApi(input, (api) => list(api, values.json === true));
      case 'add': {
        const [name] = operands(rest, 1, 'nimbus user add NAME --email ADDRESS');
        const email = values.email;
        if (typeof email !== 'string' || email === '')
          throw new CommandError('--email ADDRESS is required (the daemon mails verification and reset links there)');
        const password = await readNewPassword(fromStdin, name);
        return withAdminApi(input, (api) => add(api, name, email, password, values.role as string | undefined));
      }
      case 'passwd': {
        const [name] = operands(rest, 1, 'nimbus user passwd NAME');
        const password = await readNewPassword(fromStdin, name);
        return withAdminApi(input, (api) => passwd(api, name, password));
      }
      case 'role': {
        const [name, role] = operands(rest, 2, 'nimbus user role NAME ROLE');
        return withAdminApi(input, async (api) => {
          await api.post('/api/user/role', { username: name, name: role });
          say(`${name} now has the role ${role} (${api.via}).`);
          return 0;
        });
      }
      case 'delete': {
        const [name] = operands(rest, 1, 'nimbus user delete NAME [--yes]');
        await confirmDelete(name, values.yes === true);
        return withAdminApi(input, async (api) => {
          await api.post('/api/user/delete', { username: name });
          say(`Deleted ${name} with their files (${api.via}).`);
          return 0;
        });
      }
      default:
        throw new CommandError(sub ? `unknown subcommand "${sub}"\n\n${HELP}` : `which one?\n\n${HELP}`);
    }
  },
};

async function list(api: AdminApi, json: boolean): Promise<number> {
  const users = await api.get<UserRecord[]>('/api/user/all');
  if (json) {
    say(JSON.stringify(users, null, 2));
    return 0;
  }
  const rows = users.map((u) => [u.username, u.role, u.email, (u.emailVerified ?? u.isVerified) ? 'yes' : 'no', usedOf(u)]);
  printTable([['USER', 'ROLE', 'E-MAIL', 'VERIFIED', 'USED'], ...rows]);
  return 0;
}

function usedOf(user: UserRecord): string {
  const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;
  if (user.usage) {
    const max = user.usage.maxBytes === null || user.usage.maxBytes < 0 ? 'unlimited' : mib(user.usage.maxBytes);
    return `${mib(user.usage.usedBytes)} of ${max}${user.usage.overQuota ? ' (over quota)' : ''}`;
  }
  return user.usedStorage === undefined ? '?' : `${user.usedStorage} MiB`;
}

async function add(api: AdminApi, name: string, email: string, password: string, role: string | undefined): Promise<number> {
  // The role is checked first: a user created and then refused their role would be half done.
  if (role !== undefined) await api.get('/api/role', { name: role });
  await api.post('/api/user/create', { username: name, email, password });
  if (role !== undefined && role !== 'user') await api.post('/api/user/role', { username: name, name: role });
  say(`Created ${name} with the role ${role ?? 'user'} (${api.via}).`);
  return 0;
}

/** The API changes a password through user.edit, which takes the name and e-mail too: they are sent back as they are. */
async function passwd(api: AdminApi, name: string, password: string): Promise<number> {
  const user = await api.get<UserRecord>('/api/user', { username: name });
  await api.post('/api/user/edit', { username: name, newusername: name, newemail: user.email, newpassword: password });
  say(`Set the password of ${name}; their sessions were ended (${api.via}).`);
  return 0;
}

/** Deleting takes the user's files with them: asked on a terminal, else --yes must say so. */
async function confirmDelete(name: string, yes: boolean): Promise<void> {
  if (yes) return;
  if (!process.stdin.isTTY) throw new CommandError(`deleting ${name} removes their files too: pass --yes to confirm`);
  const typed = await promptLine(`Delete ${name} with all their files, shares and keys? Type the name to confirm: `);
  if (typed !== name) {
    warn('Not confirmed; nothing was deleted.');
    throw new CommandError('not confirmed');
  }
}
