/**
 * Reads a zip the way other programs will: Debian's `unzip -t` tests every entry's CRC, and
 * Python's zipfile lists the entries (name as decoded with the UTF-8 flag, method, size) with
 * a SHA-256 of each one's bytes, to compare with what was uploaded.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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
