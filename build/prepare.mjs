// npm's `prepare` step (`npm install` and `npm ci` in a checkout, `npm pack`): builds when the
// build tools are installed. TypeScript and Vite are dev dependencies, so a production install
// (`npm ci --omit=dev`, docs/shipping.md) has neither: it keeps the build already there instead
// of failing, and says so in one line. `npm pack` without the tools and without a build fails:
// a tarball without dist/ could not run.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const tools = ['typescript', 'vite'];
const missing = tools.filter((name) => {
  try {
    require.resolve(`${name}/package.json`);
    return false;
  } catch {
    return true;
  }
});

if (missing.length === 0) {
  await import('./build.mjs');
} else {
  const built = ['dist/daemon/cli.js', 'renderer/dist/index.html'].every((file) => existsSync(path.join(root, file)));
  const packing = process.env.npm_command === 'pack' || process.env.npm_command === 'publish';
  if (built) {
    process.stdout.write(`Nimbus: ${missing.join(' and ')} not installed (--omit=dev): keeping the build in dist/ and renderer/dist/.\n`);
  } else if (packing) {
    process.stderr.write(
      `Nimbus: cannot pack: no build, and ${missing.join(' and ')} not installed to make one (npm ci, then npm pack).\n`,
    );
    process.exitCode = 1;
  } else {
    process.stderr.write(
      `Nimbus: ${missing.join(' and ')} not installed (--omit=dev) and no build here: \`nimbus daemon\` will not run. ` +
        'Build where the dev dependencies are installed (npm ci), or install the packed tarball (docs/shipping.md).\n',
    );
  }
}
