/**
 * The daemon's Prometheus metrics (docs/metrics.md): one prom-client Registry per daemon, never
 * prom-client's global one, since tests and the desktop shell run several daemons in one process.
 * Everything that observes gets this object (NimbusContext.metrics) or a hook made from it; no
 * module keeps a counter of its own.
 *
 * Labels are bounded by construction: an endpoint id of shared/endpoints.ts (or one of a few
 * fixed names for WebDAV, tus and unrouted requests), an HTTP status, a fixed kind. Never a
 * username, a file name, a path or an address: a scrape must not tell who uses the daemon.
 *
 * A request costs ~0.5 µs of CPU (docs/metrics.md, "Cost"): its count is a plain number in a Map
 * per endpoint, handed to prom-client only when scraped (a prom-client counter hashes its labels
 * at every increment, even through a child kept from `labels(...)`), and its duration one
 * observation of the endpoint's histogram child, made once and kept here.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds: a JSON answer takes ~0.1–2 ms, an upload or a download of many MiB seconds. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds: a db.json write is an fsync or two (~1–20 ms); PostgreSQL one round trip or a few. */
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** What a failed PostgreSQL call was (database.ts): the server gone, every pooled connection busy, or a statement it refused. */
export type PostgresErrorKind = 'connection' | 'pool_busy' | 'statement';
const POSTGRES_ERROR_KINDS: readonly PostgresErrorKind[] = ['connection', 'pool_busy', 'statement'];

/** One endpoint's series, made at its first request: its histogram child, and its requests by status so far. */
interface EndpointSeries {
  duration: Histogram.Internal<'endpoint'>;
  byStatus: Map<number, number>;
}

export class Metrics {
  readonly #registry = new Registry();
  readonly #endpoints = new Map<string, EndpointSeries>();
  readonly #durations = new Histogram({
    name: 'nimbus_http_request_duration_seconds',
    help: 'Time from a request’s arrival until its response ended, by endpoint (event streams are left out: they last as long as their client)',
    labelNames: ['endpoint'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [this.#registry],
  });
  readonly #quotaRefusals = new Counter({
    name: 'nimbus_quota_refusals_total',
    help: 'Requests refused with 507 quota_exceeded (uploads, copies, restores, through the API, WebDAV or tus)',
    registers: [this.#registry],
  });
  readonly #uploadBytes = new Counter({
    name: 'nimbus_upload_bytes_total',
    help: 'Bytes of files stored by uploads (the API, upload links, WebDAV, tus), server-side copies and version restores included',
    registers: [this.#registry],
  });
  readonly #commitSeconds = new Histogram({
    name: 'nimbus_store_commit_seconds',
    help: 'Time a change waited in Store.commit() until it was durable (db.json written and fsynced, or PostgreSQL committed)',
    buckets: COMMIT_BUCKETS,
    registers: [this.#registry],
  });
  #postgresErrors: Counter<'kind'> | null = null;
  #s3Errors: Counter | null = null;
  #processMetrics = false;

  constructor() {
    const endpoints = this.#endpoints;
    new Counter({
      name: 'nimbus_http_requests_total',
      help: 'HTTP requests answered, by endpoint (an id of the endpoint table, dav.<METHOD>, tus.<METHOD>, metrics, or other) and status',
      labelNames: ['endpoint', 'status'] as const,
      registers: [this.#registry],
      // The totals so far, set anew at each scrape.
      collect() {
        this.reset();
        for (const [endpoint, { byStatus }] of endpoints) for (const [status, count] of byStatus) this.inc({ endpoint, status }, count);
      },
    });
  }

  /** One answered request; `seconds` null leaves it out of the latency histogram (an event stream). */
  request(endpoint: string, status: number, seconds: number | null): void {
    let series = this.#endpoints.get(endpoint);
    if (series === undefined) {
      series = { duration: this.#durations.labels(endpoint), byStatus: new Map() };
      this.#endpoints.set(endpoint, series);
    }
    series.byStatus.set(status, (series.byStatus.get(status) ?? 0) + 1);
    if (seconds !== null) series.duration.observe(seconds);
  }

  /** A request answered 507 quota_exceeded. */
  quotaRefused(): void {
    this.#quotaRefusals.inc();
  }

  /** A file of `bytes` stored by an upload. */
  readonly uploaded = (bytes: number): void => {
    if (bytes > 0) this.#uploadBytes.inc(bytes);
  };

  /** How long one `Store.commit()` took (a hook the store calls: Store.onCommitted). */
  readonly committed = (seconds: number): void => {
    this.#commitSeconds.observe(seconds);
  };

  /** The PostgreSQL error counter, every kind at 0 from the start (so a rate() has a series); what the database calls (Database.onError). */
  postgresErrors(): (kind: PostgresErrorKind) => void {
    const counter = (this.#postgresErrors ??= new Counter({
      name: 'nimbus_postgres_errors_total',
      help: 'Failed PostgreSQL calls: connection (the server could not be reached), pool_busy (no pooled connection in time), statement (refused, e.g. a conflict)',
      labelNames: ['kind'] as const,
      registers: [this.#registry],
    }));
    const children = new Map(POSTGRES_ERROR_KINDS.map((kind) => [kind, counter.labels(kind)]));
    for (const child of children.values()) child.inc(0);
    return (kind) => children.get(kind)?.inc();
  }

  /** The S3 error counter, at 0 from the start; what the bucket calls (WatchedObjectStore.onFailure). */
  s3Errors(): () => void {
    const counter = (this.#s3Errors ??= new Counter({
      name: 'nimbus_s3_errors_total',
      help: 'Bucket calls that failed because the S3 endpoint could not be reached or refused (a missing object is not counted)',
      registers: [this.#registry],
    }));
    counter.inc(0);
    return () => counter.inc();
  }

  /** A gauge read at each scrape (open event streams, the index's size): nothing to keep in step. */
  gauge(name: `nimbus_${string}`, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.#registry],
      collect() {
        this.set(read());
      },
    });
  }

  /** A state as one series per possible value, 1 for the current one (Prometheus' way with enums): `nimbus_index_state{state="ready"} 1`. */
  stateGauge<S extends string>(name: `nimbus_${string}`, help: string, label: string, states: readonly S[], read: () => S): void {
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers: [this.#registry],
      collect() {
        const now = read();
        for (const state of states) this.set({ [label]: state }, state === now ? 1 : 0);
      },
    });
  }

  /** A constant series of value 1 whose labels carry facts (the version, the backend mode). */
  info(name: `nimbus_${string}`, help: string, labels: Record<string, string>): void {
    new Gauge({ name, help, labelNames: Object.keys(labels), registers: [this.#registry] }).set(labels, 1);
  }

  get contentType(): string {
    return this.#registry.contentType;
  }

  /** The exposition text. The process's own metrics (memory, CPU, event loop) join at the first scrape: a daemon nobody scrapes (the desktop's) runs none of their monitors. */
  text(): Promise<string> {
    if (!this.#processMetrics) {
      this.#processMetrics = true;
      collectDefaultMetrics({ register: this.#registry, prefix: 'nimbus_' });
    }
    return this.#registry.metrics();
  }
}
