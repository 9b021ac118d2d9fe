// Lint: typescript-eslint's recommended rules, plus the layer rule (docs/architecture.md#layers)
// (shared ← daemon ← main; shared ← renderer; nothing imports main or renderer),
// enforced the way VS Code does it: a wrong import fails the lint, not a review.
import tseslint from 'typescript-eslint';

const layer = (forbidden, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: forbidden, message }] }],
});

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
    rules: layer(['electron', 'react', 'react-dom', '**/main/**', '**/renderer/**'], 'daemon/ imports shared/ and Node only.'),
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
