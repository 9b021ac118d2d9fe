/**
 * The one file part of a multipart/form-data upload (`curl -F file=@photo.jpg`, an HTML form, a
 * browser's FormData), as a stream of exactly its bytes: busboy parses the form as it arrives,
 * and the upload reads this stream as it would a raw body (the quota counted byte by byte, the
 * temp file or object removed on failure). The stream ends only once the whole form has been
 * parsed: a form that turns out to be cut short, malformed or to hold a second file fails it
 * instead, so such an upload stores nothing.
 */
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import type Busboy from 'busboy';
import { ApiError, badRequest } from '../errors.js';

/**
 * What a hostile form may cost. Fields have no listener, so busboy skips their values without
 * keeping them (fieldSize bounds them all the same); a part's headers are at most 16 KiB
 * (busboy's own bound). FORM_OVERHEAD_BYTES bounds the bytes around the file, which are read
 * and thrown away.
 */
const LIMITS: Busboy.Limits = { files: 1, fields: 32, parts: 33, fieldSize: 64 << 10, fieldNameSize: 200, headerPairs: 32 };
const FORM_OVERHEAD_BYTES = 1 << 20;

/** busboy, required on the first form rather than at start (as co-body is: daemon/http/params.ts). */
let busboyModule: typeof Busboy | null = null;
const loadBusboy = () => (busboyModule ??= createRequire(import.meta.url)('busboy') as typeof Busboy);

/**
 * A form's file part as a Readable. Nothing is read from `req` until the upload first reads
 * this stream, so a refused upload (a missing user, a name taken) still reads no byte of the body.
 * A Content-Type without a boundary is a 400 at once.
 */
export class FormFilePart extends Readable {
  /**
   * The form's declared length, a bound on the file's: the object store sizes its parts by it
   * (daemon/storage/cluster/object-uploads.ts reads `headers['content-length']`).
   */
  readonly headers: { 'content-length'?: string };
  readonly #req: IncomingMessage;
  readonly #form: Busboy.Busboy;
  #file: Readable | null = null;
  /** The file part's name as the form gave it, once its headers are parsed. */
  #named: { resolve: (name: string) => void; reject: (err: Error) => void; promise: Promise<string> } | null = null;
  #started = false;
  #fileBytes = 0;
  #formBytes = 0;

  constructor(req: IncomingMessage) {
    super();
    this.#req = req;
    this.headers = { 'content-length': req.headers['content-length'] };
    try {
      this.#form = loadBusboy()({ headers: req.headers, limits: LIMITS });
    } catch (err) {
      throw badRequest(`Unreadable multipart/form-data Content-Type (${(err as Error).message})`, 'bad_request');
    }
    this.#listen(this.#form);
  }

  /**
   * The file name the form gives its file part (an upload link's form names the file only
   * there): starts reading the form, and resolves once the part's headers are parsed, before
   * any of its bytes are taken; rejects as the form fails.
   */
  fileName(): Promise<string> {
    if (!this.#named) {
      let resolve!: (name: string) => void;
      let reject!: (err: Error) => void;
      const promise = new Promise<string>((yes, no) => ([resolve, reject] = [yes, no]));
      promise.catch(() => undefined);
      this.#named = { resolve, reject, promise };
      this.once('error', (err: Error) => reject(err));
      if (!this.#started) this.#start();
    }
    return this.#named.promise;
  }

  override _read(): void {
    if (this.#started) this.#file?.resume();
    else this.#start();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    const req = this.#req;
    req.unpipe(this.#form);
    req.off('data', this.#countFormBytes);
    req.off('close', this.#onRequestClose);
    req.off('error', this.#onRequestClose);
    this.#form.destroy();
    this.#file?.destroy();
    // A refusal mid-form: the rest of the body is read and dropped, so the client can finish
    // sending and read the answer (the idle and rate limits still bound it). A form never read
    // is left to Node, which drops it once answered, as a raw body.
    if (this.#started && !req.complete && !req.destroyed) req.resume();
    callback(err);
  }

  #start(): void {
    this.#started = true;
    this.#req.on('close', this.#onRequestClose);
    this.#req.on('error', this.#onRequestClose);
    // The client may have gone while the upload got ready: its close has fired already, and a
    // destroyed request pipes nothing, so the form would wait for ever (and keep its temp file).
    if (this.#req.destroyed) return void this.destroy(new Error('The client went away before the upload finished'));
    this.#req.pipe(this.#form);
    // After the pipe's own listener: busboy has passed a chunk's file bytes on when it is counted.
    this.#req.on('data', this.#countFormBytes);
  }

  /** What the form tells as it is parsed; listened to from the start, since a form destroyed unread fails too. */
  #listen(form: Busboy.Busboy): void {
    form.on('file', (_field: string, file: Readable, info: { filename?: string }) => {
      this.#file = file;
      if (this.#named) {
        // Held until the upload reads: the name decides where the bytes go.
        file.pause();
        this.#named.resolve(info.filename ?? '');
      }
      file.on('error', () => undefined); // busboy fails the form too: answered from there
      file.on('data', (chunk: Buffer) => {
        this.#fileBytes += chunk.length;
        if (!this.push(chunk)) file.pause();
      });
    });
    form.on('filesLimit', () => this.#refuse(badRequest('Send one file per upload: this form has more than one file part', 'bad_request')));
    form.on('partsLimit', () => this.#refuse(badRequest(`A form may hold at most ${LIMITS.parts} parts`, 'bad_request')));
    form.on('fieldsLimit', () =>
      this.#refuse(badRequest(`A form may hold at most ${LIMITS.fields} fields besides the file`, 'bad_request')),
    );
    form.on('error', (err: Error) =>
      this.#refuse(badRequest(`The multipart form is malformed or cut short (${err.message})`, 'bad_request')),
    );
    form.on('finish', () => {
      if (this.#file === null)
        this.#refuse(badRequest('The form has no file part (send the file as -F file=@name, or the raw bytes)', 'bad_request'));
      else if (!this.destroyed) this.push(null);
    });
  }

  /** Bytes of the form that are not the file's (fields, part headers, a preamble) are bounded. */
  readonly #countFormBytes = (chunk: Buffer) => {
    this.#formBytes += chunk.length;
    const buffered = this.#file?.readableLength ?? 0;
    if (this.#formBytes - this.#fileBytes - buffered > FORM_OVERHEAD_BYTES)
      this.#refuse(new ApiError('payload_too_large', `A form may hold at most ${FORM_OVERHEAD_BYTES >> 20} MiB besides its file`));
  };

  /** The client went away (or the request was aborted) before the form ended. */
  readonly #onRequestClose = () => {
    if (!this.#req.complete) this.destroy(new Error('The client went away before the upload finished'));
  };

  #refuse(err: ApiError): void {
    this.#named?.reject(err);
    if (!this.destroyed) this.destroy(err);
  }
}
