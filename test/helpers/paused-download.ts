/** A GET whose body the test stops reading after its first bytes: a transfer still in flight, to cut off or finish. */
import http from 'node:http';

export interface Paused {
  status: number;
  /** Reads the rest: how many bytes came in all, and whether the answer came whole. */
  finish(): Promise<{ bytes: number; clean: boolean }>;
}

/** Starts a GET of `url` and stops reading it after its first bytes, while the body is still streaming. */
export function startPaused(url: string, headers: Record<string, string>): Promise<Paused> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      let bytes = 0;
      res.once('data', (chunk: Buffer) => {
        bytes += chunk.length;
        res.pause();
        const finish = () =>
          new Promise<{ bytes: number; clean: boolean }>((done) => {
            // Complete: the whole answer came, as framed. A connection closed early may already
            // have ended the paused response (with nothing left to read, it closes at once).
            const settle = () => done({ bytes, clean: res.complete });
            if (res.closed) return settle();
            res.on('data', (c: Buffer) => (bytes += c.length));
            res.on('error', () => undefined);
            res.on('close', settle);
            res.resume();
          });
        resolve({ status: res.statusCode ?? 0, finish });
      });
    });
    req.on('error', reject);
  });
}
