import { mkdir, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type { MailDelivery } from '../shared/types.js';
import { ApiError } from './errors.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The language of its words (shared/languages.ts), sent as its Content-Language header. */
  language?: string;
}

export interface SentMail {
  delivery: MailDelivery;
  /** The .eml written, for outbox delivery. */
  file?: string;
}

/**
 * Sends mail through SMTP when NIMBUS_SMTP_URL is set; otherwise nodemailer renders the
 * message and it is written as an .eml file into the outbox, so an offline machine loses
 * nothing and an operator can forward it by hand.
 *
 * nodemailer is imported on the first mail, not at start: loading it cost the daemon's
 * start-up ~130 ms of CPU (of ~850 ms to listening, issue 15) for mail most starts never
 * send; the first mail pays it once (~130 ms, next to an SMTP round trip or a file write).
 */
export class Mailer {
  readonly delivery: MailDelivery;
  readonly #smtpUrl: string | null;
  readonly #from: string;
  readonly #outboxDir: string;
  #transport: Promise<Transporter> | null = null;

  constructor(options: { smtpUrl: string | null; from: string; outboxDir: string }) {
    this.delivery = options.smtpUrl ? 'smtp' : 'outbox';
    this.#smtpUrl = options.smtpUrl;
    this.#from = options.from;
    this.#outboxDir = options.outboxDir;
  }

  /** The transport, made on first use (see the class comment). */
  #transporter(): Promise<Transporter> {
    return (this.#transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      this.#smtpUrl
        ? nodemailer.createTransport(this.#smtpUrl)
        : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
    ));
  }

  /** Mails sent by this process: in an outbox file's name, so that the names sort in the order the mails were sent. */
  #sent = 0;

  async send(mail: Mail): Promise<SentMail> {
    // Named when asked for, before any wait: two mails within one millisecond (a reset asked
    // for twice) used to sort by their random suffix, the later one first now and then.
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${String(++this.#sent).padStart(8, '0')}-${randomBytes(4).toString('hex')}.eml`;
    const { language, ...content } = mail;
    const message = { from: this.#from, ...content, ...(language ? { headers: { 'Content-Language': language } } : {}) };
    const transport = await this.#transporter();
    if (this.delivery === 'smtp') {
      try {
        await transport.sendMail(message);
      } catch (err) {
        throw new ApiError('mail_failed', `The mail server refused the message: ${(err as Error).message}`);
      }
      return { delivery: 'smtp' };
    }
    const info = (await transport.sendMail(message)) as { message: Buffer };
    await mkdir(this.#outboxDir, { recursive: true, mode: 0o700 });
    const file = path.join(this.#outboxDir, name);
    await writeFile(file, info.message, { mode: 0o600 });
    return { delivery: 'outbox', file };
  }

  close(): void {
    void this.#transport?.then((transport) => transport.close()).catch(() => undefined);
  }
}
