/**
 * Runs DaneeCloud's Discord bot (test/fixtures/daneecloud-bot, its files unchanged) in this
 * process with Discord replaced by a recorder. Module loading is hooked for the bot's files
 * only, and only these modules are replaced:
 *
 * - `gcommands`: `new Command({...})` and `new Listener({...})` are captured; a test calls a
 *   command's `run(ctx)` with a fake ctx (arguments from the test, every permission granted,
 *   `reply` recorded).
 * - `discord.js`: an EmbedBuilder (and the modal builders of /register) that records its calls as
 *   plain data and refuses what discord.js's own validators refuse (a title, description or
 *   field that is not a non-empty string), so a reply Discord would reject fails here too.
 * - `request`: /info's two version lookups answer a fixed body, with no network.
 * - `md5`: not installed here; node:crypto's MD5 gives the same hex digest.
 *
 * The bot's index.js runs as published: it builds its `cloud` (a real `daneecloud-api` client
 * from node_modules) from the `cloud_url` and `api_key` variables, which the harness sets to
 * the test daemon and key. The client library's own bugs get the same help as in
 * test/daemon/daneecloud-client.test.ts: its folder methods use the globals `axios` and `logger`
 * without requiring them (they are provided), `deleteFileFolder` reads `this.this.cloudUrl`
 * (the client gets a `this` property pointing at itself), and its npm update check on load
 * is answered locally.
 */
import { createHash } from 'node:crypto';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
export const BOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/daneecloud-bot');

/** What one command did: its replies (plain data), a modal it showed, or what it threw. */
export interface Outcome {
  replies: unknown[];
  modals: unknown[];
  errors: string[];
}

interface CommandDef {
  name: string;
  run: (ctx: unknown) => unknown;
}

export interface Bot {
  /** The bot's `cloud` export: the real daneecloud-api client. */
  cloud: Record<string, (...args: unknown[]) => Promise<{ code: number; data: unknown }>>;
  commands: string[];
  /** The commands run so far. */
  ran: Set<string>;
  /** Runs a slash command with these arguments and waits for its reply (up to `waitMs`, 5 s by default). */
  run(name: string, args?: Record<string, string | number>, options?: { waitMs?: number }): Promise<Outcome>;
  /** Sends the registration modal's answers to the bot's interactionCreate listener. */
  submitRegistration(fields: Record<string, string>): Promise<Outcome>;
}

class Recorded {
  readonly data: Record<string, unknown> = {};
  protected set(key: string, value: unknown) {
    this.data[key] = value;
    return this;
  }
  toJSON() {
    return { kind: this.constructor.name, ...this.data };
  }
}

/** discord.js's string rules: a string of 1..max characters (null allowed where it clears a value). */
function text(what: string, value: unknown, max: number, nullable = true): unknown {
  if (value === null && nullable) return value;
  if (typeof value !== 'string') throw new TypeError(`EmbedBuilder: ${what} must be a string, got ${describe(value)}`);
  if (value.length < 1 || value.length > max)
    throw new RangeError(`EmbedBuilder: ${what} must be 1..${max} characters, got ${value.length}`);
  return value;
}

function describe(value: unknown): string {
  return value === null ? 'null' : typeof value === 'object' ? `an object ${JSON.stringify(value)}` : `${typeof value} ${String(value)}`;
}

class EmbedBuilder extends Recorded {
  setTitle(title: unknown) {
    return this.set('title', text('title', title, 256));
  }
  setDescription(description: unknown) {
    return this.set('description', text('description', description, 4096));
  }
  setColor(color: unknown) {
    return this.set('color', color);
  }
  setThumbnail(url: unknown) {
    return this.set('thumbnail', text('thumbnail', url, 2048));
  }
  setFooter(footer: unknown) {
    return this.set('footer', footer);
  }
  addFields(...fields: unknown[]) {
    const list = (fields.length === 1 && Array.isArray(fields[0]) ? fields[0] : fields) as {
      name: unknown;
      value: unknown;
      inline?: unknown;
    }[];
    const all = (this.data.fields as unknown[] | undefined) ?? [];
    for (const f of list) {
      text('field name', f.name, 256, false);
      text(`field "${String(f.name)}" value`, f.value, 1024, false);
      all.push({ name: f.name, value: f.value, inline: f.inline });
    }
    return this.set('fields', all);
  }
}

/** The modal builders of /register: every setter is recorded. */
function builder(kind: string) {
  const Built = class extends Recorded {
    constructor() {
      super();
      return new Proxy(this, {
        get: (target, prop, receiver) => {
          if (typeof prop !== 'string' || prop in target) return Reflect.get(target, prop, receiver);
          return (...values: unknown[]) => {
            target.data[prop] = values.length === 1 ? values[0] : values;
            return receiver;
          };
        },
      });
    }
  };
  Object.defineProperty(Built, 'name', { value: kind });
  return Built;
}

/** Every string in a recorded reply, for the undefined / NaN / [object Object] check. */
export function textsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number') return [String(value)];
  if (value instanceof Recorded) return textsOf(value.data);
  if (Array.isArray(value)) return value.flatMap(textsOf);
  if (value && typeof value === 'object') return Object.values(value).flatMap(textsOf);
  return [];
}

export async function loadBot(cloudUrl: string, apiKey: string): Promise<Bot> {
  const commands: CommandDef[] = [];
  const ran = new Set<string>();
  const listeners: CommandDef[] = [];
  let current: Outcome | null = null;
  const fail = (err: unknown) => current?.errors.push(err instanceof Error ? `${err.name}: ${err.message}` : String(err));

  const gcommands = {
    Command: class {
      constructor(def: CommandDef) {
        commands.push(def);
      }
    },
    Listener: class {
      constructor(def: CommandDef) {
        listeners.push(def);
      }
    },
    Argument: class {
      constructor(def: object) {
        Object.assign(this, def);
      }
    },
    CommandType: { SLASH: 1, MESSAGE: 2, CONTEXT_USER: 3, CONTEXT_MESSAGE: 4 },
    ArgumentType: { SUB_COMMAND: 1, STRING: 3, INTEGER: 4, BOOLEAN: 5, USER: 6, CHANNEL: 7, ROLE: 8, NUMBER: 10 },
    GClient: class {
      login() {
        return Promise.resolve('logged in (stand-in)');
      }
    },
    Plugins: { search: () => undefined },
    Component: { setDefaults: () => undefined },
  };
  const discord = {
    EmbedBuilder,
    ModalBuilder: builder('ModalBuilder'),
    TextInputBuilder: builder('TextInputBuilder'),
    ActionRowBuilder: builder('ActionRowBuilder'),
    TextInputStyle: { Short: 1, Paragraph: 2 },
    GatewayIntentBits: { Guilds: 1, GuildMessages: 512 },
    Events: { InteractionCreate: 'interactionCreate' },
  };
  const request = {
    get(_url: string, callback: (error: unknown, response: unknown, body: string) => void) {
      setImmediate(() => {
        try {
          callback(null, { statusCode: 200 }, '2.0.3');
        } catch (err) {
          fail(err); // a throw in a request callback is the command's own failure
        }
      });
    },
  };
  const md5 = (value: unknown) => createHash('md5').update(String(value)).digest('hex');
  const stands: Record<string, unknown> = { gcommands, 'discord.js': discord, request, md5 };

  // The library's update check, and the globals its folder methods expect.
  const axios = require('axios') as {
    interceptors: { request: { use(fn: (config: { url?: string; adapter?: unknown }) => unknown): number } };
  };
  axios.interceptors.request.use((config) => {
    if (config.url?.startsWith('https://registry.npmjs.org/')) {
      config.adapter = async () => ({ data: { 'dist-tags': { latest: '2.0.3' } }, status: 200, statusText: 'OK', headers: {}, config });
    }
    return config;
  });
  const g = globalThis as { axios?: unknown; logger?: unknown };
  g.axios = axios;
  g.logger = require('daneecloud-api/handlers/logger');

  const loader = Module as unknown as { _load: (request: string, parent: { filename?: string } | null, isMain: boolean) => unknown };
  const original = loader._load;
  const inBot = (file: string | undefined) => file !== undefined && file.startsWith(BOT_DIR + path.sep);
  for (const file of Object.keys(require.cache)) if (inBot(file)) delete require.cache[file];
  const saved = { cloud_url: process.env.cloud_url, api_key: process.env.api_key, admin_perm: process.env.admin_perm };
  process.env.cloud_url = cloudUrl;
  process.env.api_key = apiKey;
  process.env.admin_perm = 'Administrator';
  loader._load = function (req, parent, isMain) {
    if (inBot(parent?.filename) && Object.hasOwn(stands, req)) return stands[req];
    return original.call(this, req, parent, isMain);
  };
  let cloud: Bot['cloud'];
  try {
    cloud = (require(path.join(BOT_DIR, 'index.js')) as { cloud: Bot['cloud'] }).cloud;
    // deleteFileFolder reads this.this.cloudUrl (the library's bug).
    (cloud as unknown as { this: unknown }).this = cloud;
    const { readdirSync } = await import('node:fs');
    for (const dir of ['commands', 'listeners']) {
      for (const file of readdirSync(path.join(BOT_DIR, dir)).sort()) require(path.join(BOT_DIR, dir, file));
    }
  } finally {
    loader._load = original;
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  // Read when a command runs (share.js builds its link from cloud_url).
  const env = { cloud_url: cloudUrl, api_key: apiKey, admin_perm: 'Administrator' };

  const settle = async (outcome: Outcome, run: () => unknown, waitMs = 5000) => {
    current = outcome;
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    try {
      await run();
      // /info replies from inside its request callbacks, after run() returned.
      const until = Date.now() + waitMs;
      while (outcome.replies.length === 0 && outcome.modals.length === 0 && outcome.errors.length === 0 && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 10));
      }
    } catch (err) {
      fail(err);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      current = null;
    }
    return outcome;
  };

  return {
    cloud,
    commands: commands.map((c) => c.name),
    ran,
    run(name, args = {}, options = {}) {
      const def = commands.find((c) => c.name === name);
      if (!def) throw new Error(`the bot has no command ${name}`);
      ran.add(name);
      const outcome: Outcome = { replies: [], modals: [], errors: [] };
      const arg = (key: string) => {
        if (!(key in args)) throw new Error(`/${name} read argument ${key}, which the test did not give`);
        return args[key];
      };
      const ctx = {
        arguments: { getString: arg, getInteger: arg, getNumber: arg, getBoolean: arg },
        member: { permissions: { has: () => true } },
        channel: { bulkDelete: async () => new Map() },
        interaction: { showModal: (modal: unknown) => outcome.modals.push(modal) },
        reply: (reply: unknown) => outcome.replies.push(reply),
      };
      return settle(outcome, () => def.run(ctx), options.waitMs);
    },
    submitRegistration(fields) {
      const listener = listeners.find((l) => l.name === 'interactionCreate');
      if (!listener) throw new Error('the bot has no interactionCreate listener');
      const outcome: Outcome = { replies: [], modals: [], errors: [] };
      const interaction = {
        customId: 'registration',
        isModalSubmit: () => true,
        fields: { getField: (id: string) => ({ value: fields[id] }) },
        reply: (reply: unknown) => outcome.replies.push(reply),
      };
      return settle(outcome, () => listener.run(interaction));
    },
  };
}

/** Removes the globals the harness gave the client library. */
export function unloadBot(): void {
  const g = globalThis as { axios?: unknown; logger?: unknown };
  delete g.axios;
  delete g.logger;
  for (const file of Object.keys(require.cache)) if (file.startsWith(BOT_DIR + path.sep)) delete require.cache[file];
}
