// `node --import tsx bench/lib/routing-daemon.ts <table|koa-router> <data-dir>`: the daemon
// (startDaemon, as `nimbus daemon --port 0` runs it) with the routing the bench's routing row
// compares. Both variants start through this file, so they run the same way.
import { startDaemon } from '../../daemon/index.js';
import { koaRouterRouting } from './koa-router-routing.js';

const [routing, dataDir] = process.argv.slice(2);
if ((routing !== 'table' && routing !== 'koa-router') || !dataDir) {
  process.stderr.write('usage: routing-daemon.ts <table|koa-router> <data-dir>\n');
  process.exit(2);
}
let wake: () => void = () => undefined;
const stopped = new Promise<void>((resolve) => (wake = resolve));
process.once('SIGTERM', () => wake());
process.once('SIGINT', () => wake());
// 'table' passes no routing: the daemon's default, exactly what `nimbus daemon` runs.
const daemon = await startDaemon({ port: 0, dataDir, routing: routing === 'koa-router' ? koaRouterRouting : undefined });
process.stdout.write(`Nimbus daemon (${routing} routing) listening on ${daemon.url}\n`);
await stopped;
await daemon.close();
