// Lint: typescript-eslint's recommended rules, plus the layer rules (docs/architecture.md#layers)
// (shared ← daemon ← main; shared ← renderer; nothing imports main or renderer; inside
// daemon/, entry → http → services → storage → store → util), enforced the way VS Code does
// it: a wrong import fails the lint, not a review.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const layer = (forbidden, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: forbidden, message }] }],
});

const DAEMON_DIR = fileURLToPath(new URL('./daemon/', import.meta.url));

/**
 * The layers inside daemon/, from the top: a module may import its own layer and the ones
 * below it, never one above. Each layer lists what it holds, relative to daemon/ (a folder
 * ends in '/'); a module in none of them fails the lint until it is placed here.
 */
const DAEMON_LAYERS = [
  [
    'entry',
    [
      'index.ts',
      'daemon-types.ts',
      'daemon.ts',
      'daemon-serve.ts',
      'daemon-upkeep.ts',
      'backends.ts',
      'object-mode.ts',
      'cli.ts',
      'cli/',
      'paths-command.ts',
      'migrate/',
    ],
  ],
  ['http', ['http/']],
  ['services', ['services/', 'context.ts', 'keys/', 'accounts/', 'mail.ts']],
  ['storage', ['storage/']],
  ['store', ['store/']],
  // config-*.ts and paths-command.ts (above) arrive with issue 24's configuration table.
  [
    'util',
    [
      'util/',
      'errors.ts',
      'logging.ts',
      'version.ts',
      'run-file.ts',
      'config.ts',
      'config-types.ts',
      'config-parsers.ts',
      'config-table.ts',
      'config-docs.ts',
    ],
  ],
];
const LAYER_ORDER = DAEMON_LAYERS.map(([name]) => name).join(' → ');

/** The index in DAEMON_LAYERS of a file under daemon/, or -1. */
function daemonLayerOf(file) {
  const relative = path.relative(DAEMON_DIR, file).split(path.sep).join('/');
  return DAEMON_LAYERS.findIndex(([, members]) =>
    members.some((member) => (member.endsWith('/') ? relative.startsWith(member) : relative === member)),
  );
}

/**
 * Resolves each relative import (type-only ones, re-exports and `import()` too) to the module
 * it names, which is why this is a rule of its own: `no-restricted-imports` sees only the
 * specifier, and `./index.js` is the entry from daemon/ but a migration list in store/.
 */
const daemonLayers = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      upward: '{{source}} is {{to}}, above {{from}}: inside daemon/ imports go down only ({{order}}; docs/architecture.md#layers).',
      unplaced: 'daemon/{{file}} is in no layer: add it to DAEMON_LAYERS in eslint.config.js.',
    },
  },
  create(context) {
    const file = context.filename;
    const from = daemonLayerOf(file);
    const check = (node) => {
      const specifier = node.source?.value;
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts'));
      const to = daemonLayerOf(target);
      if (from < 0 || to < 0 || to >= from) return;
      const data = { source: specifier, to: DAEMON_LAYERS[to][0], from: DAEMON_LAYERS[from][0], order: LAYER_ORDER };
      context.report({ node: node.source, messageId: 'upward', data });
    };
    return {
      Program(node) {
        if (from < 0) context.report({ node, messageId: 'unplaced', data: { file: path.relative(DAEMON_DIR, file) } });
      },
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'renderer/dist/**',
      'node_modules/**',
      'test-artifacts/**',
      'bench/data/**',
      '.scratch/**',
      'test/fixtures/daneecloud-bot/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: layer(
      ['node:*', 'electron', 'react', 'react-dom', '**/daemon/**', '**/main/**', '**/renderer/**'],
      'shared/ is pure TypeScript: no Node, Electron, React or other layers.',
    ),
  },
  {
    files: ['daemon/**/*.ts'],
    plugins: { nimbus: { rules: { 'daemon-layers': daemonLayers } } },
    rules: {
      ...layer(['electron', 'react', 'react-dom', '**/main/**', '**/renderer/**'], 'daemon/ imports shared/ and Node only.'),
      'nimbus/daemon-layers': 'error',
    },
  },
  {
    files: ['main/**/*.{ts,cts}'],
    rules: layer(
      ['react', 'react-dom', '**/renderer/**', '**/daemon/!(index.js)', '**/daemon/*/**'],
      'main/ imports shared/ and the daemon’s public entry (daemon/index.js) only.',
    ),
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    ignores: ['renderer/vite.config.ts'], // build tooling, runs in Node
    rules: layer(
      ['node:*', 'electron', '**/daemon/**', '**/main/**'],
      'renderer/ imports shared/ types only and reaches the daemon over HTTP.',
    ),
  },
);
