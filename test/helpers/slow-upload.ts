/** An upload whose body the test sends piece by piece, to act while it is still streaming. */
import http from 'node:http';

export interface SlowUpload {
  /** Sends part of the body (resolves once it is written to the socket). */
  write(chunk: Buffer | string): Promise<void>;
  /** Sends the rest of the body and ends the request. */
  end(chunk?: Buffer | string): void;
  /** Drops the connection mid-body. */
  abort(): void;
  /** The response (status 0 if the connection died before one came). */
  response: Promise<{ status: number; text: string }>;
}

export function slowUpload(port: number, key: string, params: Record<string, string>, contentLength: number | null): SlowUpload {
  const headers: Record<string, string> = { 'API-Key': key };
  if (contentLength !== null) headers['Content-Length'] = String(contentLength);
  const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: `/api/files/upload?${new URLSearchParams(params)}`, headers });
  const response = new Promise<{ status: number; text: string }>((resolve) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, text: '' }));
    });
    req.on('error', () => resolve({ status: 0, text: '' }));
  });
  req.flushHeaders();
  return {
    write: (chunk) => new Promise((resolve) => req.write(chunk, () => resolve())),
    end: (chunk) => {
      req.end(chunk);
    },
    abort: () => req.destroy(),
    response,
  };
}
