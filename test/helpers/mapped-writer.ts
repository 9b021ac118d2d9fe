/**
 * Writes a file through a shared memory mapping, as some programs do (databases, download
 * managers): only the first write to a mapped page moves the file's modification and change
 * times; later ones, until the kernel writes the page back (tens of seconds), change the bytes
 * and leave every field of a stat as it was. Python's mmap module does it (python3 is already
 * a test dependency: test/helpers/zip.ts); Node has no mmap of its own.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const WRITER = `
import mmap, sys
f = open(sys.argv[1], 'r+b')
m = mmap.mmap(f.fileno(), 0)
for line in sys.stdin:
    data = bytes.fromhex(line.strip())
    m[:len(data)] = data
    print('ok', flush=True)
`;

export interface MappedWriter {
  /** Puts `bytes` at the start of the mapped file (no longer than it) and resolves once they are in. */
  write(bytes: Buffer): Promise<void>;
  /** Unmaps the file and ends the writer. */
  close(): Promise<void>;
}

/** Maps `file` (which must exist) for writing, in a child process that holds the mapping until closed. */
export function mappedWriter(file: string): MappedWriter {
  const child = spawn('python3', ['-c', WRITER, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  const acks = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    async write(bytes) {
      child.stdin.write(`${bytes.toString('hex')}\n`);
      const ack = await acks.next();
      if (ack.done || ack.value !== 'ok') throw new Error('The mapped writer did not write');
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}
