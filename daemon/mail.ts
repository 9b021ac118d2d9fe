import { mkdir, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailDelivery } from '../shared/types.js';
import { ApiError } from './errors.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
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
 */
export class Mailer {
  readonly delivery: MailDelivery;
  readonly #transport: Transporter;
  readonly #from: string;
  readonly #outboxDir: string;

  constructor(options: { smtpUrl: string | null; from: string; outboxDir: string }) {
    this.delivery = options.smtpUrl ? 'smtp' : 'outbox';
    this.#from = options.from;
    this.#outboxDir = options.outboxDir;
    this.#transport = options.smtpUrl
      ? nodemailer.createTransport(options.smtpUrl)
      : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  }

  async send(mail: Mail): Promise<SentMail> {
    const message = { from: this.#from, ...mail };
    if (this.delivery === 'smtp') {
      try {
        await this.#transport.sendMail(message);
      } catch (err) {
        throw new ApiError('mail_failed', `The mail server refused the message: ${(err as Error).message}`);
      }
      return { delivery: 'smtp' };
    }
    const info = (await this.#transport.sendMail(message)) as { message: Buffer };
    await mkdir(this.#outboxDir, { recursive: true, mode: 0o700 });
    const file = path.join(this.#outboxDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
    await writeFile(file, info.message, { mode: 0o600 });
    return { delivery: 'outbox', file };
  }

  close(): void {
    this.#transport.close();
  }
}
