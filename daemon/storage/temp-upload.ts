/**
 * An upload's body received into a temp file under tmpDir (outside the watched tree),
 * written back as it comes and fsynced before it is placed (uploads.ts).
 */
import { unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ApiError, fromFsError } from '../errors.js';
import { ignoreMissing } from './fs-helpers.js';
import { pipeFromClient } from './pipe-from-client.js';
import type { StorageParts } from './storage-parts.js';
import { TempFileWriter } from './temp-file-writer.js';
import type { ReceivedUpload } from './upload-call.js';

/**
 * Streams `source` into an fsynced temp file (`ref`: its path). Counts synchronously: while
 * a promise `onBytes` returned is pending the bytes keep going to the temp file, later
 * totals are checked after it in order, and a refusal stops the stream at the next chunk
 * (or, at the end, before anything is placed) with the temp file removed.
 */
export async function receiveToTemp(
  s: StorageParts,
  source: Readable,
  onBytes: (total: number) => void | Promise<void>,
): Promise<ReceivedUpload> {
  let pending: Promise<void> | null = null;
  let refusal: { err: unknown } | null = null;
  let stopped = false;
  const counted = (total: number) => {
    if (refusal) throw refusal.err;
    if (pending === null) {
      const result = onBytes(total);
      if (!(result instanceof Promise)) return;
      pending = result;
    } else {
      pending = pending.then(() => (stopped ? undefined : onBytes(total)));
    }
    pending.catch((err: unknown) => {
      refusal ??= { err };
    });
  };
  let received: ReceivedUpload;
  try {
    const { tempPath, size } = await receiveInto(s, source, counted);
    received = { ref: tempPath, size };
  } catch (err) {
    // No check may still be running once this answers: the caller lets go of what they held.
    stopped = true;
    await (pending as Promise<void> | null)?.catch(() => undefined);
    throw err;
  }
  if (pending !== null) {
    try {
      await pending;
    } catch (err) {
      await discardTemp(received);
      throw err;
    }
  }
  return received;
}

/** Removes a received temp file that will not be placed. */
export async function discardTemp(received: ReceivedUpload): Promise<void> {
  await unlink(received.ref).catch(ignoreMissing);
}

/**
 * Streams `source` into a temp file under tmpDir, calling `onBytes` with the running
 * total before the bytes go to disk (it throws to stop the upload), then fsyncs it.
 * Returns the temp path; on any failure the temp file is closed and removed.
 */
async function receiveInto(
  s: StorageParts,
  source: Readable,
  onBytes: (total: number) => void,
): Promise<{ tempPath: string; size: number }> {
  s.assertWritable();
  const tempPath = path.join(s.tmpDir, `upload-${randomBytes(12).toString('hex')}`);
  const out = new TempFileWriter(tempPath, onBytes);
  const closed = closedOf(out);
  const letGo = pipeFromClient(source, out);
  try {
    await closed;
  } catch (err) {
    await unlink(tempPath).catch(() => undefined);
    if (err instanceof ApiError) throw err;
    throw fromFsError(err) ?? err;
  } finally {
    letGo();
  }
  return { tempPath, size: out.total };
}

/** Settles once `out` is closed (its file too): fulfilled if it finished, rejected with its error otherwise. */
function closedOf(out: TempFileWriter): Promise<void> {
  return new Promise((resolve, reject) => {
    out.on('error', () => undefined); // read from `errored` at 'close'
    out.once('close', () => {
      if (out.writableFinished && !out.errored) resolve();
      else reject(out.errored ?? new Error('The upload was stopped'));
    });
  });
}
