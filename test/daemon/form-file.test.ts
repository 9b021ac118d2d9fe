/**
 * The form reader (daemon/http/form-file.ts) on its own, against a real socket: a client that
 * goes away before the daemon starts reading its form must fail the form, not leave it (and
 * the upload's temp file) waiting for bytes that will never come. The full CI run of issue 22
 * met it: a form cut short on the wire kept its temp file past 10 s.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FormFilePart } from '../../daemon/http/form-file.js';

let server: http.Server | null = null;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A request whose client sent part of a form and went away; resolved once the daemon saw it go. */
function goneRequest(): Promise<http.IncomingMessage> {
  return new Promise((resolve) => {
    server = http.createServer((req) => req.once('close', () => resolve(req)));
    server.listen(0, '127.0.0.1', () => {
      const { port } = server!.address() as AddressInfo;
      const part = '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n' + 'a'.repeat(1000);
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /up HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=xyz\r\nContent-Length: 50000\r\n\r\n${part}`,
          () => socket.destroy(),
        );
      });
      socket.on('error', () => undefined);
    });
  });
}

describe('a form whose client went away', () => {
  it('fails when it is read only after the client left', async () => {
    const req = await goneRequest();
    expect(req.destroyed).toBe(true);
    const form = new FormFilePart(req);
    const outcome = await new Promise<string>((resolve) => {
      form.on('error', (err) => resolve(`error: ${err.message}`));
      form.on('end', () => resolve('end'));
      form.resume();
      setTimeout(() => resolve('still waiting'), 5000).unref();
    });
    expect(outcome).toMatch(/^error: /);
  });
});
