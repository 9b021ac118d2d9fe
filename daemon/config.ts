/**
 * The daemon's configuration, resolved from the configuration table (daemon/config-table.ts):
 * for each row its flag (an option), else its NIMBUS_* variable, else its default.
 */
import type { ConfigInput, DaemonConfig } from './config-types.js';
import { flagName, optionOf, SETTINGS, type Setting } from './config-table.js';

export type { ConfigInput, DaemonConfig, S3Config } from './config-types.js';
export { parsePort, redactUrl } from './config-parsers.js';
export { defaultDataDir, DEFAULT_PORT } from './config-table.js';

/** Every DaemonConfig field is some row's (a field no row fills fails to compile here). */
type Unfilled = Exclude<keyof DaemonConfig, 'rendererDir' | NonNullable<(typeof SETTINGS)[number]['key']>>;
const everyFieldHasARow: [Unfilled] extends [never] ? true : Unfilled = true;
void everyFieldHasARow;

export function resolveConfig(input: ConfigInput, env: NodeJS.ProcessEnv, rendererDir: string): DaemonConfig {
  const config: Partial<Record<keyof DaemonConfig, unknown>> = { rendererDir };
  for (const row of SETTINGS as Setting[])
    if (row.key !== null) config[row.key] = resolveSetting(row, input, env, config as Partial<DaemonConfig>);
  return config as DaemonConfig;
}

/**
 * One row's value. A flag's value wins even when empty (a caller that passes an option means
 * it), and one already parsed by the caller (a port number) is taken as it is; an empty
 * variable counts as unset unless the row keeps it.
 */
function resolveSetting(row: Setting, input: ConfigInput, env: NodeJS.ProcessEnv, earlier: Partial<DaemonConfig>): unknown {
  const option = row.flag ? optionOf(row.flag) : row.option;
  const given = option ? input[option] : undefined;
  if (given !== undefined) return typeof given === 'string' ? row.parse!(given, row.flag ? flagName(row.flag) : option!, env) : given;
  const raw = env[row.env];
  if (raw === undefined || (raw === '' && !row.keepsEmpty)) return row.fallback!(env, earlier);
  return row.parse!(raw, row.env, env);
}

/** The flags of the table, as node:util's parseArgs takes them (`{ port: { type: 'string' } }`). */
export function configFlags(): Record<string, { type: 'string' }> {
  return Object.fromEntries(flagged().map((row) => [flagName(row.flag!).slice(2), { type: 'string' as const }]));
}

/** ConfigInput from parsed command-line flags; typed options are parsed now, so a bad one fails before anything starts. */
export function inputFromFlags(values: Record<string, unknown>, env: NodeJS.ProcessEnv): ConfigInput {
  const input: Record<string, unknown> = {};
  for (const row of flagged()) {
    const name = flagName(row.flag!);
    const value = values[name.slice(2)];
    if (typeof value === 'string') input[optionOf(row.flag!)] = row.typed ? row.parse!(value, name, env) : value;
  }
  return input as ConfigInput;
}

const flagged = () => (SETTINGS as Setting[]).filter((row) => row.flag);
