/** Runs the CLI from source in a child process (spawned with `node --import tsx`), for kill tests. */
import { main } from '../../daemon/cli.js';

process.exitCode = await main(process.argv.slice(2));
