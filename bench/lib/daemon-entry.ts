// The daemon's CLI run from the TypeScript source (what bin/nimbus.js does when there is
// no dist/): the bench uses it when dist/ is missing or older than the source.
import { main } from '../../daemon/cli.js';

process.exitCode = await main(process.argv.slice(2));
