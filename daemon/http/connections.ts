import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Revocations } from '../services/revocations.js';

/** What the connection's authenticated requests used, and its latest one. */
interface Bound {
  /** Every credential its requests presented: nearly always one, so a Set only when needed. */
  credentials: string | Set<string>;
  /** The latest authenticated request's response and credential (in flight while Node still writes it). */
  res: ServerResponse;
  credential: string;
}

/** Node's own field for the response a socket is writing now; it has no public accessor. */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * Remembers which connections carried requests of which credential, and closes them when
 * the credential is revoked: a keep-alive connection, or a download or event stream that
 * started while the key was good, must not outlive it.
 *
 * On revocation, a connection that is idle is destroyed at once, and one that is streaming a
 * response of the revoked credential too. One whose response is still being decided (the
 * rotate or delete request itself, or another key's request) gets that answer with
 * `Connection: close`, and is closed after it.
 */
export class ConnectionTracker {
  readonly #bySocket = new WeakMap<Socket, Bound>();
  readonly #byCredential = new Map<string, Set<Socket>>();

  constructor(revocations: Revocations) {
    revocations.onRevoke((credential) => this.#revoke(credential));
  }

  /** Records that this request, on this connection, was authenticated by `credential` (once per request: keep it cheap). */
  bind(socket: Socket, res: ServerResponse, credential: string): void {
    const bound = this.#bySocket.get(socket);
    if (bound) {
      bound.res = res;
      bound.credential = credential;
      if (bound.credentials === credential) return;
      if (typeof bound.credentials === 'string') bound.credentials = new Set([bound.credentials]);
      else if (bound.credentials.has(credential)) return;
      bound.credentials.add(credential);
    } else {
      this.#bySocket.set(socket, { credentials: credential, res, credential });
      socket.once('close', () => this.#forget(socket));
    }
    let sockets = this.#byCredential.get(credential);
    if (!sockets) this.#byCredential.set(credential, (sockets = new Set()));
    sockets.add(socket);
  }

  #forget(socket: Socket): void {
    const bound = this.#bySocket.get(socket);
    if (!bound) return;
    this.#bySocket.delete(socket);
    for (const credential of typeof bound.credentials === 'string' ? [bound.credentials] : bound.credentials) {
      const sockets = this.#byCredential.get(credential);
      sockets?.delete(socket);
      if (sockets?.size === 0) this.#byCredential.delete(credential);
    }
  }

  #revoke(credential: string): void {
    const sockets = this.#byCredential.get(credential);
    if (!sockets) return;
    this.#byCredential.delete(credential);
    for (const socket of sockets) this.#close(socket as HttpSocket, credential);
  }

  #close(socket: HttpSocket, credential: string): void {
    const current = socket._httpMessage;
    if (!current) {
      socket.destroy();
      return;
    }
    const bound = this.#bySocket.get(socket);
    if (current.headersSent && bound?.res === current && bound.credential === credential) {
      socket.destroy();
      return;
    }
    if (!current.headersSent) current.shouldKeepAlive = false;
    current.once('finish', () => socket.destroySoon());
  }
}
