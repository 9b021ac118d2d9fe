import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { uiAssets } from '../build/ui-assets.mjs';

const root = fileURLToPath(new URL('.', import.meta.url));

/** The chunk a module of node_modules goes to, by package: libraries change less often than the app. */
const VENDOR_CHUNKS: [name: string, test: RegExp][] = [
  ['react', /node_modules[\\/](react|react-dom|scheduler)[\\/]/],
  ['query', /node_modules[\\/]@tanstack[\\/]/],
  ['i18n', /node_modules[\\/](i18next|react-i18next|html-parse-stringify|void-elements)[\\/]/],
  ['icons', /node_modules[\\/]lucide-react[\\/]/],
];

// The daemon serves renderer/dist at `/` (assets under /assets/); Electron loads the same
// page from the daemon. The base is absolute because the page is also served at deep
// addresses (/files/ana/Docs), where a relative ./assets/ would name /files/ana/assets/. No
// inline scripts: the daemon's CSP is `script-src 'self'`. How it is served (compressed
// copies, caching, no source maps, chunks): docs/explorer.md, "How the UI is served".
export default defineConfig({
  root,
  base: '/',
  plugins: [react(), uiAssets({ mapsDir: fileURLToPath(new URL('../dist/renderer-sourcemaps', import.meta.url)) })],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Written without a sourceMappingURL, then moved out of what is served (build/ui-assets.mjs).
    sourcemap: 'hidden',
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [...VENDOR_CHUNKS.map(([name, test]) => ({ name, test }))],
        },
      },
    },
  },
});
