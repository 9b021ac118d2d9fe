/**
 * A TCP proxy a test can cut and mend: one daemon's way to PostgreSQL goes through it, so
 * that daemon alone loses the database (a network partition) while the others keep theirs.
 * Cut: every open connection is destroyed and new ones are dropped at once; mended: new
 * connections pass again.
 */
import net from 'node:net';

export interface TcpProxy {
  /** The proxy's own port on 127.0.0.1. */
  port: number;
  cut(): void;
  /** Cuts once `bytes` more have come from the target (to cut a transfer in its middle). */
  cutAfter(bytes: number): void;
  mend(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let open = true;
  /** Bytes from the target still to pass before a cut (cutAfter); null: none planned. */
  let untilCut: number | null = null;
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server = net.createServer((client) => {
    track(client);
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target);
    track(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (untilCut === null) return;
      untilCut -= chunk.length;
      if (untilCut <= 0) {
        untilCut = null;
        open = false;
        cutAll();
      }
    });
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      open = false;
      cutAll();
    },
    cutAfter(bytes) {
      untilCut = bytes;
    },
    mend() {
      untilCut = null;
      open = true;
    },
    async close() {
      open = false;
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
