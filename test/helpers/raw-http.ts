/** Raw HTTP for what fetch will not send: any Host header, none at all, HTTP/1.0, lying lengths. */
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes as they are and reads the whole response (the server closes or sends it all). */
export function rawRequest(port: number, request: string | Buffer, options: { endAfterWrite?: boolean } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => {
      chunks.push(c);
      const parsed = tryParse(Buffer.concat(chunks));
      if (parsed) {
        socket.destroy();
        resolve(parsed);
      }
    });
    socket.on('error', (err) => {
      const parsed = tryParse(Buffer.concat(chunks));
      if (parsed) resolve(parsed);
      else reject(err);
    });
    socket.on('close', () => {
      const parsed = tryParse(Buffer.concat(chunks), true);
      if (parsed) resolve(parsed);
      else reject(new Error(`connection closed without a response: ${Buffer.concat(chunks).toString()}`));
    });
    socket.write(request);
    if (options.endAfterWrite) socket.end();
  });
}

function tryParse(buf: Buffer, closed = false): RawResponse | null {
  const text = buf.toString('latin1');
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const [statusLine, ...lines] = text.slice(0, headEnd).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const body = buf.subarray(Buffer.byteLength(text.slice(0, headEnd + 4), 'latin1'));
  const length = headers['content-length'];
  if (length !== undefined && body.length < Number(length) && !closed) return null;
  if (length === undefined && headers['transfer-encoding'] === 'chunked' && !body.toString().endsWith('0\r\n\r\n') && !closed) return null;
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8') };
}

/** A GET with exactly the given Host header line (or none). */
export function getWithHost(
  port: number,
  path: string,
  host: string | null,
  extra: Record<string, string> = {},
  version = '1.1',
): Promise<RawResponse> {
  const lines = [`GET ${path} HTTP/${version}`];
  if (host !== null) lines.push(`Host: ${host}`);
  for (const [k, v] of Object.entries(extra)) lines.push(`${k}: ${v}`);
  lines.push('Connection: close', '', '');
  return rawRequest(port, lines.join('\r\n'));
}
