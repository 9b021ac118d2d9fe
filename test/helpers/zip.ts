/**
 * Reads a zip the way other programs will: Debian's `unzip -t` tests every entry's CRC, and
 * Python's zipfile lists the entries (name as decoded with the UTF-8 flag, method, size) with
 * a SHA-256 of each one's bytes, to compare with what was uploaded.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ZipEntryInfo {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  size: number;
  sha256: string;
  /** Bit 11 of the general purpose flags: the name is UTF-8. */
  utf8: boolean;
}

const LIST_ENTRIES = `
import hashlib, json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    out = []
    for i in z.infolist():
        h = hashlib.sha256()
        with z.open(i) as f:
            while True:
                b = f.read(1 << 20)
                if not b: break
                h.update(b)
        out.append({"name": i.filename, "method": i.compress_type, "size": i.file_size, "sha256": h.hexdigest(), "utf8": bool(i.flag_bits & 0x800)})
    print(json.dumps({"bad": bad, "entries": out}))
`;

export const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** The entries of a zip, after `unzip -t` and Python's testzip() both found every CRC right. */
export async function readZip(bytes: Buffer): Promise<ZipEntryInfo[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-zip-'));
  try {
    const file = path.join(dir, 'answer.zip');
    await writeFile(file, bytes);
    const { stdout } = await run('python3', ['-c', LIST_ENTRIES, file], { maxBuffer: 64 << 20 });
    const listed = JSON.parse(stdout) as { bad: string | null; entries: ZipEntryInfo[] };
    if (listed.bad !== null) throw new Error(`zipfile: bad CRC in ${listed.bad}`);
    // unzip answers an empty zip with a warning (exit 1) and nothing to test.
    if (listed.entries.length === 0) return [];
    const tested = await run('unzip', ['-t', file]).catch((err: { stdout?: string; stderr?: string }) => {
      throw new Error(`unzip -t failed: ${err.stdout ?? ''}${err.stderr ?? ''}`);
    });
    if (!/No errors detected/.test(tested.stdout)) throw new Error(`unzip -t: ${tested.stdout}`);
    return listed.entries;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Saves a (huge) zip answer to `file` without spending disk on the zeros of sparse inputs:
 * a 1 MiB block of zeros is skipped (a hole), everything else written where it belongs.
 * Resolves with the number of bytes received.
 */
export async function saveSparse(body: AsyncIterable<Uint8Array>, file: string): Promise<number> {
  const handle = await open(file, 'w');
  try {
    let position = 0;
    let pending = Buffer.alloc(0);
    const flush = async (bytes: Buffer) => {
      for (let at = 0; at < bytes.length; at += BLOCK) {
        const block = bytes.subarray(at, at + BLOCK);
        if (!block.equals(ZEROS.subarray(0, block.length))) await handle.write(block, 0, block.length, position);
        position += block.length;
      }
    };
    for await (const chunk of body) {
      pending = Buffer.concat([pending, chunk]);
      if (pending.length >= BLOCK) {
        const whole = pending.length - (pending.length % BLOCK);
        await flush(pending.subarray(0, whole));
        pending = pending.subarray(whole);
      }
    }
    await flush(pending);
    await handle.truncate(position);
    return position;
  } finally {
    await handle.close();
  }
}

const BLOCK = 1 << 20;
const ZEROS = Buffer.alloc(BLOCK);

const LIST_INFO = `
import json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    print(json.dumps([{"name": i.filename, "method": i.compress_type, "size": i.file_size, "zip64": i.extract_version >= 45, "text": z.read(i).decode() if i.filename.endswith(".txt") else None} for i in z.infolist()]))
`;

export interface BigZipEntry {
  name: string;
  method: number;
  size: number;
  /** Whether the entry needed ZIP64 (version needed to extract ≥ 4.5). */
  zip64: boolean;
  /** The content of a `.txt` entry. */
  text: string | null;
}

/** A zip on disk too big to hash here: `unzip -t` checks every CRC, Python lists the entries. */
export async function testBigZip(file: string): Promise<BigZipEntry[]> {
  const tested = await run('unzip', ['-t', file], { maxBuffer: 16 << 20 });
  if (!/No errors detected/.test(tested.stdout)) throw new Error(`unzip -t: ${tested.stdout}`);
  const { stdout } = await run('python3', ['-c', LIST_INFO, file], { maxBuffer: 16 << 20 });
  return JSON.parse(stdout) as BigZipEntry[];
}
