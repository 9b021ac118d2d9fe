/**
 * Log lines gathered as UTF-8 bytes until they are written (daemon/logging.ts). Why not one
 * string (`pending += line`, then `Buffer.from` at the flush): a request line is itself a
 * string of ~20 concatenated pieces, the gathered string a rope of a few hundred of them that
 * outlives the young generation's collections, and encoding it at the flush walked it whole.
 * Encoding each line as it comes, while it is still in the cache, then dropping it, was ~150 ns
 * a line less in a loop alone and more under load (bench/NOTES.md, issue 30).
 */
export class LineBuffer {
  readonly #bytes: Buffer;
  #used = 0;

  constructor(capacity: number) {
    this.#bytes = Buffer.allocUnsafe(capacity);
  }

  /** Bytes gathered since the last `take`. */
  get size(): number {
    return this.#used;
  }

  /** Appends `line`, or answers false (nothing appended) when it might not fit: `take` first. */
  tryAppend(line: string): boolean {
    // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair's two take 4).
    if (line.length * 3 > this.#bytes.length - this.#used) return false;
    this.#used += this.#bytes.write(line, this.#used);
    return true;
  }

  /** A copy of the bytes gathered (the writer may keep it: a pipe's write can be asynchronous), and the buffer emptied. */
  take(): Buffer {
    const taken = Buffer.from(this.#bytes.subarray(0, this.#used));
    this.#used = 0;
    return taken;
  }
}
