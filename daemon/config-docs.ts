/**
 * The configuration table (daemon/config-table.ts) as people read it: the options and
 * environment parts of `nimbus --help`, and the README's configuration section, which
 * test/daemon/config-table.test.ts compares with this rendering (`npm run readme:config`
 * writes it).
 */
import { SETTING_GROUPS, SETTINGS, type Setting } from './config-table.js';

const rows = SETTINGS as Setting[];
const HELP_WIDTH = 100;

/** Markdown's `code` as a terminal shows it. */
const plain = (markdown: string) => markdown.replace(/`/g, '');

/** Lines of `name` then `text`, the text starting at `column` and wrapped at HELP_WIDTH, indented under itself. */
function helpEntry(name: string, text: string, column: number): string {
  const lines: string[] = [];
  let line = `  ${name}`.padEnd(column);
  if (line.length > column) {
    lines.push(line);
    line = ' '.repeat(column);
  }
  let empty = true;
  for (const word of text.split(' ')) {
    if (!empty && line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(line);
      line = ' '.repeat(column);
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines.map((l) => `${l}\n`).join('');
}

/** The `Options:` and `Environment:` parts of `nimbus --help`: every row, flags first. */
export function settingsHelp(): string {
  const flagged = rows.filter((row) => row.flag);
  const column = 2 + Math.max(...rows.map((row) => (row.flag ?? row.env).length)) + 2;
  const options = flagged.map((row) => helpEntry(row.flag!, plain(`${row.help} (${row.env}; default ${row.shown})`), column));
  const environment = rows.filter((row) => !row.flag).map((row) => helpEntry(row.env, plain(`${row.help} (default ${row.shown})`), column));
  return `Options:\n${options.join('')}\nEnvironment:\n${environment.join('')}`;
}

export const README_TABLE_START = '<!-- The configuration table: generated from daemon/config-table.ts by `npm run readme:config`. -->';
export const README_TABLE_END = '<!-- End of the generated configuration table. -->';

/** The README's configuration tables, one per group, aligned as Prettier aligns Markdown tables. */
export function readmeTables(): string {
  const sections = Object.entries(SETTING_GROUPS).map(([group, title]) => {
    const cells = rows
      .filter((row) => row.group === group)
      .map((row) => [
        row.flag ? `\`${row.flag.split(' ')[0]}\`` : '',
        `\`${row.env}\``,
        row.shown,
        row.more ? `${row.help}; ${row.more}` : row.help,
      ]);
    return `**${title}**\n\n${markdownTable(['Flag', 'Variable', 'Default', 'What it does'], cells)}`;
  });
  return `${README_TABLE_START}\n\n${sections.join('\n\n')}\n\n${README_TABLE_END}`;
}

function markdownTable(header: string[], body: string[][]): string {
  const widths = header.map((title, i) => Math.max(3, title.length, ...body.map((cells) => cells[i].length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...body.map(line)].join('\n');
}

/** `readme` with the text between the markers replaced by readmeTables(); throws when a marker is missing. */
export function withReadmeTables(readme: string): string {
  const start = readme.indexOf(README_TABLE_START);
  const end = readme.indexOf(README_TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the configuration table's markers (${README_TABLE_START})`);
  return readme.slice(0, start) + readmeTables() + readme.slice(end + README_TABLE_END.length);
}
