// The image's HEALTHCHECK: GET /api/health on the daemon's own port, under the loopback name
// its Host check always accepts. Healthy on any 200 ("ok", or "degraded": only the bucket is
// unreachable, and every daemon shares it, so taking one out would help nothing); unhealthy on
// a 503 (the database or the storage folder), another status, or no answer within 4 s.
const port = process.env.NIMBUS_PORT || '7878';
try {
  const res = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(4000) });
  const body = await res.text();
  process.stdout.write(`${res.status} ${body}\n`);
  process.exitCode = res.status === 200 ? 0 : 1;
} catch (err) {
  process.stdout.write(`no answer on port ${port}: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
