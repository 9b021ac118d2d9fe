import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { assertSharedAdminKey, backendMode, needsDataDirLock, openBackends } from './backends.js';
import { redactUrl, resolveConfig } from './config.js';
import { announceRemoteChange } from './http/remote-events.js';
import type { NimbusContext } from './context.js';
import { EventHub } from './http/events.js';
import { openResumableUploads } from './http/tus/start.js';
import { createApp } from './http/app.js';
import { limitSlowBodies } from './http/body-timeout.js';
import { createHttpServer } from './http/server.js';
import { preloadBodyParser } from './http/params.js';
import { preloadZip } from './services/zip.js';
import type { DaemonOptions, RunningDaemon } from './daemon-types.js';
import { loadAdminKey } from './keys/admin-key.js';
import { hashSecret } from './keys/secrets.js';
import { Mailer } from './mail.js';
import { storageProbe } from './services/health.js';
import { observeDaemon } from './services/metrics-sources.js';
import { MemoryQuotaLedger } from './services/quota.js';
import { Revocations } from './services/revocations.js';
import { Sessions } from './services/sessions.js';
import { followWatchedMove, watchForVanishedResources } from './services/dav-follow.js';
import { sweepExpiredLocks } from './services/dav-locks.js';
import { followMovedFolder, watchForVanishedShares } from './services/shares.js';
import { adoptTrash, purgeTrash, trashRoot } from './services/trash.js';
import { dropPast, sweepVersions } from './services/versions.js';
import { ChangeFeed } from './storage/change-feed.js';
import { releaseHeldUnder } from './storage/held-dirs.js';
import { FileIndex } from './storage/file-index.js';
import { Storage } from './storage/storage.js';
import { LiveStorage } from './storage/watcher.js';
import { ApiError } from './errors.js';
import { DataDirLock } from './store/lock.js';
import { KeyedMutex } from './util/mutex.js';
import { PACKAGE_ROOT, VERSION } from './version.js';
import { openDaemonLog } from './logging.js';
import { removeRunFile, writeRunFile } from './run-file.js';

const SHUTDOWN_GRACE_MS = 5000;
/** How often trash items past NIMBUS_TRASH_DAYS are looked for (besides at start). */
const TRASH_PURGE_INTERVAL_MS = 60 * 60_000;

/** Each running daemon's context, for code in the same process that works below the HTTP API (the tests of services). */
const contexts = new WeakMap<RunningDaemon, NimbusContext>();

/** The context of a daemon started in this process (not part of the public entry, index.ts). */
export function contextOf(daemon: RunningDaemon): NimbusContext {
  const nimbus = contexts.get(daemon);
  if (!nimbus) throw new Error('Not a daemon started in this process');
  return nimbus;
}

/** Starts the daemon: lock, store, admin key, HTTP server, then the index scan in the background. */
export async function startDaemon(options: DaemonOptions = {}): Promise<RunningDaemon> {
  const env = options.env ?? process.env;
  const config = resolveConfig(options, env, path.join(PACKAGE_ROOT, 'renderer', 'dist'));
  const mode = backendMode(config);
  assertSharedAdminKey(config);
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  // Object mode has no storage folder: the bytes are in the bucket.
  if (!config.s3) await mkdir(config.storageDir, { recursive: true });
  // One logger per daemon: <data-dir>/logs/nimbus.log, echoed to stderr unless the caller takes the lines.
  const logs = openDaemonLog({ dataDir: config.dataDir, level: config.logLevel, terminal: options.log ? null : process.stderr });
  const log = (line: string) => {
    logs.logger.warn(line);
    options.log?.(line);
  };
  const lock = new DataDirLock(path.join(config.dataDir, 'nimbus.lock'));
  try {
    // Several daemons share PostgreSQL + S3; each keeps only logs, caches and temp files in its data directory.
    if (needsDataDirLock(mode)) lock.acquire();
  } catch (err) {
    logs.startFailed(err);
    logs.close();
    throw err;
  }
  const cleanups: (() => Promise<void> | void)[] = [() => logs.close(), () => lock.release()];
  // prom-client costs ~20 ms of loading: begun now, it loads while the store opens.
  const loadingMetrics = import('./util/metrics.js');
  try {
    const changes = new ChangeFeed();
    const index = new FileIndex(changes);
    const backends = await openBackends(config, index, logs.logger, log);
    const store = backends.store;
    let storeClosed = false;
    const closeStore = async () => {
      if (storeClosed) return;
      storeClosed = true;
      await backends.closeBeforeStore();
      await store.close();
    };
    cleanups.push(closeStore);
    const admin = await loadAdminKey(config, log);
    const disk = backends.objects ? null : new Storage(config.storageDir, path.join(config.dataDir, 'tmp'), index);
    await disk?.cleanTemp();
    // Directories kept open across requests (storage/held-dirs.ts) are let go when the daemon stops.
    if (disk) cleanups.push(() => releaseHeldUnder(config.storageDir, config.dataDir));
    // User deletions a crash cut short, put back or removed before the first scan (storage/tombstones.ts).
    const finishingDeletions = await disk?.finishDeletions((name) => store.users.get(name)?.createdAt, log);
    cleanups.push(() => finishingDeletions);
    const mailer = new Mailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, outboxDir: path.join(config.dataDir, 'outbox') });
    cleanups.push(() => mailer.close());
    const revocations = new Revocations();
    const sessions = new Sessions(store, revocations);
    const metrics = new (await loadingMetrics).Metrics();
    const nimbus: NimbusContext = {
      config,
      store,
      index,
      changes,
      storage: backends.objects?.storage ?? disk!,
      mailer,
      quota: backends.objects?.quota ?? new MemoryQuotaLedger(),
      locks: new KeyedMutex(),
      admin: { key: admin.key, hash: hashSecret(admin.key), source: admin.source },
      startedAt: Date.now(),
      baseUrl: '',
      orphans: new Set(),
      watcherMode: disk ? 'starting' : 'none',
      revocations,
      sessions,
      probes: [...backends.probes, backends.objects?.probe ?? storageProbe({ index })],
      logger: logs.logger,
      log,
      metrics,
    };
    observeDaemon(metrics, nimbus, backends.objects?.objects ?? null, mode);
    watchForVanishedShares(nimbus);
    watchForVanishedResources(nimbus);
    // The trash after a crash: entries without records adopted, records without entries dropped; then what is due is purged.
    await mkdir(trashRoot(nimbus), { recursive: true, mode: 0o700 });
    await adoptTrash(nimbus);
    // Versions after a crash: bytes without a record removed, records without bytes dropped (docs/versions.md).
    await sweepVersions(nimbus).catch((err: Error) => log(`Nimbus: sweeping the versions failed: ${err.message}`));
    // The hourly upkeep: the trash's due items, versions past their days, and WebDAV locks that expired unused (never honoured meanwhile).
    const purge = () =>
      Promise.all([
        purgeTrash(nimbus).catch((err: Error) => log(`Nimbus: purging the trash failed: ${err.message}`)),
        dropPast(nimbus)
          .then((n) => (n > 0 ? nimbus.store.commit() : undefined))
          .catch((err: Error) => log(`Nimbus: dropping old versions failed: ${err.message}`)),
        sweepExpiredLocks(nimbus).catch((err: Error) => log(`Nimbus: sweeping expired WebDAV locks failed: ${err.message}`)),
      ]);
    let purging: Promise<unknown> = purge();
    await purging;
    const purgeTimer = setInterval(() => (purging = purging.then(purge)), TRASH_PURGE_INTERVAL_MS);
    purgeTimer.unref();
    const stopPurging = async () => {
      clearInterval(purgeTimer);
      await purging;
    };
    cleanups.push(stopPurging);
    // Resumable uploads kept by the previous run, their quota held again before anyone is answered.
    const resumable = await openResumableUploads(nimbus, mode === 'cluster');
    if (resumable) cleanups.push(() => resumable.close());
    const events = new EventHub(changes, { revocations: nimbus.revocations, maxBufferedBytes: config.eventBufferBytes, log });
    cleanups.push(() => events.close());
    // What other daemons change enters this one's feed, with this daemon's ids (files: through the index, above).
    store.onRemoteChange((change) => announceRemoteChange(change, (event) => changes.publish(event), revocations));
    // Node checks the headers timeout on this interval (30 s by default, longer than the timeout).
    const server = createHttpServer(Math.max(100, Math.min(5000, config.headersTimeoutMs / 4)));
    const app = createApp(nimbus, events, () => (server.address() as AddressInfo | null)?.port ?? config.port, {
      routing: options.routing,
      tus: resumable?.uploads ?? null,
    });
    server.on('request', app.callback());
    server.requestTimeout = 0; // uploads of many GiB may take long; idle sockets still time out
    server.headersTimeout = config.headersTimeoutMs;
    // ...and so do idle and too slow bodies
    limitSlowBodies(server, { idleMs: config.bodyIdleMs, minBytesPerSecond: config.minBodyRate, graceMs: config.minBodyGraceMs });
    // Past this many, connections are refused rather than the process running out of file handles.
    server.maxConnections = config.maxConnections;
    let dropLogged = false;
    server.on('drop', () => {
      if (!dropLogged) log(`Nimbus: ${config.maxConnections} connections are open; refusing more (NIMBUS_MAX_CONNECTIONS).`);
      dropLogged = true;
    });
    await listen(server, config.port, config.host);
    const port = (server.address() as AddressInfo).port;
    const urlHost =
      config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${urlHost}:${port}`;
    nimbus.baseUrl = config.publicUrl ?? url;
    await writeRunFile(config.dataDir, { pid: process.pid, url });
    cleanups.push(() => removeRunFile(config.dataDir));
    logs.logger.info(
      {
        url,
        mode,
        dataDir: config.dataDir,
        ...(disk ? { storageDir: config.storageDir } : { bucket: config.s3!.bucket, s3Endpoint: config.s3!.endpoint }),
        ...(config.databaseUrl ? { database: redactUrl(config.databaseUrl) } : {}),
      },
      `Nimbus ${VERSION} started on ${url}`,
    );

    // The first scan runs after listening: the API answers (index `scanning`) while it reads.
    // Object mode has nothing to scan: its index was built from the rows before listening.
    // (The context itself, not a copy: the watcher writes watcherMode into it.)
    const following = disk ? followStorageFolder(nimbus as NimbusContext & { storage: Storage }, options.watchFactory, log) : null;
    if (following) {
      cleanups.push(() => following.live.close());
      nimbus.rescan = following.rescan;
    } else nimbus.rescan = async () => undefined;
    const scanning = following?.scanning ?? Promise.resolve();
    const timer = following?.timer ?? null;
    // Modules kept off the way to listening are loaded once the first scan is done, so the
    // first upload form or zip does not pay for them either.
    void scanning.then(() => setImmediate(preloadDeferredModules));

    let closing: Promise<void> | null = null;
    const close = () =>
      (closing ??= (async () => {
        if (timer) clearInterval(timer);
        events.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const grace = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        await closed;
        clearTimeout(grace);
        await scanning;
        await stopPurging();
        await sessions.close();
        await closeStore();
        logs.logger.info('Nimbus stopped');
        for (const cleanup of cleanups.reverse()) await cleanup();
      })());
    const running: RunningDaemon = {
      url,
      host: config.host,
      port,
      dataDir: config.dataDir,
      storageDir: config.storageDir,
      logDir: logs.dir,
      logger: logs.logger,
      adminKey: () => nimbus.admin.key,
      close,
    };
    contexts.set(running, nimbus);
    return running;
  } catch (err) {
    logs.startFailed(err);
    for (const cleanup of cleanups.reverse()) await cleanup();
    throw err;
  }
}

/** The storage folder followed: the first scan (in the background), the watcher, and the periodic reconcile. */
function followStorageFolder(
  target: NimbusContext & { storage: Storage },
  watchFactory: DaemonOptions['watchFactory'],
  log: (line: string) => void,
) {
  const { storageDir, reconcileIntervalMs } = target.config;
  const live = new LiveStorage(target, watchFactory, (move) => {
    followMovedFolder(target, move.username, move.from, move.to);
    followWatchedMove(target, move.username, move.from, move.to);
  });
  const rescan = async () => {
    if (!(await live.reconcile())) throw new ApiError('storage_unavailable', `The storage directory ${storageDir} is not available`);
  };
  const scanning = live.reconcile().catch((err: Error) => log(`Nimbus: the first scan of ${storageDir} failed: ${err.message}`));
  const timer =
    reconcileIntervalMs > 0
      ? setInterval(
          () => void live.reconcile().catch((err: Error) => log(`Nimbus: the periodic reconcile failed: ${err.message}`)),
          reconcileIntervalMs,
        )
      : null;
  timer?.unref();
  return { live, rescan, scanning, timer };
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE')
        reject(new Error(`Port ${port} on ${host} is already in use: stop what uses it, or pass --port (0 picks a free one).`));
      else reject(err);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** The modules the daemon requires on first use (a request body, a zip), loaded ahead of it. */
function preloadDeferredModules(): void {
  preloadBodyParser();
  preloadZip();
}
