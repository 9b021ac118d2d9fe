// The web UI's build output made ready to serve (docs/explorer.md, "How the UI is served"), as a
// Vite plugin, so `npm run build` and the tests' own `vite build` (test/helpers/browser.ts) both
// get it:
// - every text file gets a brotli (`.br`) and a gzip (`.gz`) copy beside it, kept only when
//   smaller, made here once with Node's zlib at the highest levels (too slow per request, free
//   at build time); the daemon picks one by Accept-Encoding (daemon/http/static-variants.ts);
// - source maps leave the served folder: Vite writes them "hidden" (no sourceMappingURL) and
//   they are moved to `mapsDir`, outside what the daemon serves, for a developer to load.
import { mkdir, readdir, readFile, rename, rm, stat, writeFile, copyFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** What is worth compressing: text. Images, fonts and media are compressed already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|xml|webmanifest)$/;

/** Every file under `dir`, as paths relative to it. */
async function filesUnder(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** Moves a file, across file systems too. */
async function move(from, to) {
  await mkdir(path.dirname(to), { recursive: true });
  try {
    await rename(from, to);
  } catch (err) {
    if (err.code !== 'EXDEV') throw err;
    await copyFile(from, to);
    await rm(from);
  }
}

/**
 * Writes `file.br` and `file.gz` when they are smaller than `file`. They are written after it,
 * so they are never older: the daemon serves a copy only if it is at least as new as the file
 * (a file rebuilt without this plugin is then served as it is, never with an old copy).
 */
async function precompress(file) {
  const bytes = await readFile(file);
  const [br, gz] = await Promise.all([
    brotli(bytes, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
    gzip(bytes, { level: zlib.constants.Z_BEST_COMPRESSION }),
  ]);
  for (const [suffix, packed] of [
    ['.br', br],
    ['.gz', gz],
  ]) {
    if (packed.length < bytes.length) await writeFile(`${file}${suffix}`, packed);
    else await rm(`${file}${suffix}`, { force: true });
  }
}

/** The plugin. `mapsDir`: where the source maps go, outside the served folder. */
export function uiAssets({ mapsDir }) {
  let outDir = '';
  return {
    name: 'nimbus-ui-assets',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    // After every file is written, the public folder's included.
    async closeBundle() {
      await rm(mapsDir, { recursive: true, force: true });
      for (const name of await filesUnder(outDir)) {
        const file = path.join(outDir, name);
        if (name.endsWith('.map')) await move(file, path.join(mapsDir, name));
        else if (COMPRESSIBLE.test(name) && (await stat(file)).size > 0) await precompress(file);
      }
    },
  };
}
