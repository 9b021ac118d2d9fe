/**
 * Where a new password comes from: never the command line (argv is readable by every user of
 * the machine through /proc and lands in shell history). On a terminal it is asked twice
 * without echo; with `--password-stdin` it is the first line of standard input (a script
 * pipes it from a secret store).
 */
import { CommandError } from './common.js';

export async function readNewPassword(fromStdin: boolean, what: string): Promise<string> {
  if (fromStdin) return passwordFromStdin();
  if (!process.stdin.isTTY)
    throw new CommandError(
      'no terminal to ask the password on: pipe it in and pass --password-stdin (it is never taken from the command line)',
    );
  const first = await promptHidden(`New password for ${what}: `);
  const second = await promptHidden('Again: ');
  if (first !== second) throw new CommandError('the two passwords differ; nothing was changed');
  return first;
}

/** The first line of stdin, without its line ending; an empty one is refused. */
async function passwordFromStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new CommandError('--password-stdin reads a pipe, not a terminal: drop it to be asked');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const line = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
  if (line === '') throw new CommandError('--password-stdin read no password');
  return line;
}

/** Reads one line from the terminal in raw mode, echoing nothing; Ctrl-C or Ctrl-D gives up. */
export function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  // Echo off before the prompt shows: a password typed the moment it appears is not echoed either.
  stdin.setRawMode(true);
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (error: Error | null) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (data: Buffer) => {
      for (const ch of data.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done(null);
        if (ch === '\u0003' || ch === '\u0004') return done(new CommandError('cancelled; nothing was changed'));
        if (ch === '\u007f' || ch === '\b') typed = [...typed].slice(0, -1).join('');
        else typed += ch;
      }
    };
    stdin.resume();
    stdin.on('data', onData);
  });
}

/** Asks a yes/no-style question on the terminal (echoed); the typed line. */
export function promptLine(question: string): Promise<string> {
  process.stderr.write(question);
  return new Promise((resolve) => {
    let typed = '';
    const onData = (data: Buffer) => {
      typed += data.toString('utf8');
      const end = typed.indexOf('\n');
      if (end < 0) return;
      process.stdin.off('data', onData);
      process.stdin.pause();
      resolve(typed.slice(0, end).replace(/\r$/, ''));
    };
    process.stdin.resume();
    process.stdin.on('data', onData);
  });
}
