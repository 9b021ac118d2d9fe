/** The mail the daemon writes or sends: reading its links, and a real SMTP server to receive it. */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** Undoes quoted-printable soft breaks and escapes, enough to read a link out of a mail. */
export function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The first `<origin>/<page>?token=…` link in a raw mail. */
function tokenLink(rawMail: string, page: 'verify' | 'reset'): URL | null {
  const match = new RegExp(`https?://[^\\s"<>]+/${page}\\?token=[A-Za-z0-9_-]+`).exec(decodeQuotedPrintable(rawMail));
  return match ? new URL(match[0]) : null;
}

/** The first `/verify?token=…` link in a raw mail. */
export const verifyLink = (rawMail: string): URL | null => tokenLink(rawMail, 'verify');

/** The first `/reset?token=…` link in a raw mail. */
export const resetLink = (rawMail: string): URL | null => tokenLink(rawMail, 'reset');

/** The .eml files of the outbox, oldest first, as text. */
export async function readOutbox(dataDir: string): Promise<string[]> {
  const dir = path.join(dataDir, 'outbox');
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.eml')).sort();
  return Promise.all(names.map((n) => readFile(path.join(dir, n), 'utf8')));
}

export interface Smtp {
  port: number;
  url: string;
  /** Every mail received, in order: envelope sender and recipients, and the raw message. */
  received: { from: string; to: string[]; raw: string }[];
  /** With `hold`: lets the held mails (and every later one) through. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A real SMTP server on a free port that keeps every mail it is given. With `hold`, it takes
 * each mail's data but does not acknowledge it until `release()`: the sender stays waiting
 * in the middle of sending, which shows whether anything waited for the mail.
 */
export async function startSmtp(options: { hold?: boolean } = {}): Promise<Smtp> {
  const { SMTPServer } = await import('smtp-server');
  const received: Smtp['received'] = [];
  let release = () => {};
  const gate = options.hold ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        void gate.then(() => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          done();
        });
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  let closed: Promise<void> | null = null;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    release: () => release(),
    close: () => (closed ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}
