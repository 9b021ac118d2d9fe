import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { assertSharedAdminKey, backendMode, needsDataDirLock, openBackends } from './backends.js';
import { redactUrl, resolveConfig } from './config.js';
import { announceRemoteChange } from './http/remote-events.js';
import type { NimbusContext } from './context.js';
import { EventHub } from './http/events.js';
import { openResumableUploads } from './http/tus/start.js';
import { preloadBodyParser } from './http/params.js';
import { preloadZip } from './services/zip.js';
import type { DaemonOptions, RunningDaemon } from './daemon-types.js';
import { serveHttp } from './daemon-serve.js';
import { followStorageFolder, startUpkeep } from './daemon-upkeep.js';
import { loadAdminKey } from './keys/admin-key.js';
import { hashSecret } from './keys/secrets.js';
import { Mailer } from './mail.js';
import { storageProbe } from './services/health.js';
import { observeDaemon } from './services/metrics-sources.js';
import { MemoryQuotaLedger } from './services/quota.js';
import { Revocations } from './services/revocations.js';
import { Sessions } from './services/sessions.js';
import { watchForVanishedResources } from './services/dav-follow.js';
import { watchForVanishedShares } from './services/shares.js';
import { ChangeFeed } from './storage/change-feed.js';
import { releaseHeldUnder } from './storage/held-dirs.js';
import { FileIndex } from './storage/file-index.js';
import { Storage } from './storage/storage.js';
import { DataDirLock } from './store/lock.js';
import { KeyedMutex } from './util/mutex.js';
import { tuneHeapGrowth } from './util/heap-growth.js';
import { tuneMalloc } from './util/malloc-tuning.js';
import { PACKAGE_ROOT, VERSION } from './version.js';
import { openDaemonLog } from './logging.js';
import { removeRunFile, writeRunFile } from './run-file.js';

const SHUTDOWN_GRACE_MS = 5000;

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
  // Freed buffers' pages stay in the process for the next answers (util/malloc-tuning.ts).
  tuneMalloc(env);
  // Full collections of the index's heap only once it has grown by as much again (util/heap-growth.ts).
  tuneHeapGrowth(env);
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
    const upkeep = await startUpkeep(nimbus, log);
    cleanups.push(() => upkeep.stop());
    // Resumable uploads kept by the previous run, their quota held again before anyone is answered.
    const resumable = await openResumableUploads(nimbus, mode === 'cluster');
    if (resumable) cleanups.push(() => resumable.close());
    const events = new EventHub(changes, { revocations: nimbus.revocations, maxBufferedBytes: config.eventBufferBytes, log });
    cleanups.push(() => events.close());
    // What other daemons change enters this one's feed, with this daemon's ids (files: through the index, above).
    store.onRemoteChange((change) => announceRemoteChange(change, (event) => changes.publish(event), revocations));
    const { server, port, url } = await serveHttp(nimbus, events, resumable?.uploads ?? null, options, log);
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
        await upkeep.stop();
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

/** The modules the daemon requires on first use (a request body, a zip), loaded ahead of it. */
function preloadDeferredModules(): void {
  preloadBodyParser();
  preloadZip();
}
