/** `npm run readme:config`: rewrites the README's configuration tables from daemon/config-table.ts. */
import { readFile, writeFile } from 'node:fs/promises';
import { withReadmeTables } from '../daemon/config-docs.js';

const file = new URL('../README.md', import.meta.url);
const before = await readFile(file, 'utf8');
const after = withReadmeTables(before);
if (after !== before) await writeFile(file, after);
process.stdout.write(
  after === before ? 'README.md: the configuration tables were up to date\n' : 'README.md: configuration tables rewritten\n',
);
