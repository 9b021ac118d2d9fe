import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Caller } from '../services/keys.js';
import type { Revocations } from '../services/revocations.js';
import type { EventHub } from './events.js';

/** What the connection's authenticated requests used, and its latest one. */
interface Bound {
  /** Every credential its requests presented: nearly always one, so a Set only when needed. */
  credentials: string | Set<string>;
  /** The latest authenticated request's response and caller (in flight while Node still writes it). */
  res: ServerResponse;
  caller: Caller;
  /** The user that request names (its `username`), once its parameters are read; else null. */
  named: string | null;
}

/** Whether `caller` may still have what a request of theirs naming `named` is sending or taking. */
export type MayStillHave = (caller: Caller, named: string | null) => boolean;

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
 *
 * A user's change (a role change, a rename, a deletion: `user.changed` or `user.removed`, from
 * this daemon or another) ends, socket destroyed, every response still in flight whose caller
 * may no longer have it (`mayStillHave`): a download, a zip, a thumbnail, an upload whose body
 * still streams. A keep-alive connection needs nothing: each request is authorized afresh.
 */
export class ConnectionTracker {
  readonly #bySocket = new WeakMap<Socket, Bound>();
  readonly #byCredential = new Map<string, Set<Socket>>();

  readonly #mayStillHave: MayStillHave;

  constructor(revocations: Revocations, userChanges: EventHub, mayStillHave: MayStillHave) {
    this.#mayStillHave = mayStillHave;
    revocations.onRevoke((credential) => this.#revoke(credential));
    userChanges.onPublish((event) => {
      if (event.type === 'user.changed' || event.type === 'user.removed') this.#recheck();
    });
  }

  /** Records that this request, on this connection, was authenticated as `caller` (once per request: keep it cheap). */
  bind(socket: Socket, res: ServerResponse, caller: Caller): void {
    const { credential } = caller;
    const bound = this.#bySocket.get(socket);
    if (bound) {
      bound.res = res;
      bound.caller = caller;
      bound.named = null;
      if (bound.credentials === credential) return;
      if (typeof bound.credentials === 'string') bound.credentials = new Set([bound.credentials]);
      else if (bound.credentials.has(credential)) return;
      bound.credentials.add(credential);
    } else {
      this.#bySocket.set(socket, { credentials: credential, res, caller, named: null });
      socket.once('close', () => this.#forget(socket));
    }
    let sockets = this.#byCredential.get(credential);
    if (!sockets) this.#byCredential.set(credential, (sockets = new Set()));
    sockets.add(socket);
  }

  /** Records the user this connection's current request names, once its parameters are read. */
  name(socket: Socket, res: ServerResponse, username: string | null): void {
    const bound = this.#bySocket.get(socket);
    if (bound?.res === res) bound.named = username;
  }

  /**
   * Ends the responses in flight that their caller may no longer have. One already ended is
   * left alone: node holds all of it (an event stream the hub just closed, a download's last
   * buffers). An admin key or machine key changes only by revocation.
   */
  #recheck(): void {
    for (const sockets of this.#byCredential.values())
      for (const socket of sockets) {
        const bound = this.#bySocket.get(socket);
        if (!bound || bound.res.writableEnded || bound.caller.username === null) continue;
        if (!this.#mayStillHave(bound.caller, bound.named)) socket.destroy();
      }
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
    if (current.headersSent && bound?.res === current && bound.caller.credential === credential) {
      socket.destroy();
      return;
    }
    if (!current.headersSent) current.shouldKeepAlive = false;
    current.once('finish', () => socket.destroySoon());
  }
}
