/**
 * Announces that a credential no longer authenticates, so that what it opened can close:
 * event streams end and connections that carried its requests are closed (a request is
 * authorised when it arrives; a stream or a keep-alive connection outlives that moment).
 *
 * A credential is an opaque string that names what authenticated a request: an API key's
 * hash today. Sessions plug in the same way, with their own id (e.g. `session:<id>`), by
 * setting it as the caller's credential and calling revoke() when they end.
 */
export type RevocationListener = (credential: string) => void;

export class Revocations {
  readonly #listeners = new Set<RevocationListener>();

  /** Calls `listener` with every credential revoked from now on; returns the unsubscribe. */
  onRevoke(listener: RevocationListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells every listener, synchronously: call it once the credential is refused. */
  revoke(credential: string): void {
    for (const listener of this.#listeners) listener(credential);
  }
}
