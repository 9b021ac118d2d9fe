/**
 * `nimbus` from the TypeScript source, exactly as bin/nimbus.js runs it in a checkout
 * without dist/. bin/nimbus.js prefers dist/ whenever it exists, which may be an older
 * build than the code under test; the tests run this instead (through `node --import tsx`).
 */
import { main } from '../../daemon/cli.js';

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`nimbus: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
