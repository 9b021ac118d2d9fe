import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const root = fileURLToPath(new URL('.', import.meta.url));

// The daemon serves renderer/dist at `/` (assets under /assets/); Electron loads the same
// page from the daemon. The base is absolute because the page is also served at deep
// addresses (/files/ana/Docs), where a relative ./assets/ would name /files/ana/assets/. No
// inline scripts: the daemon's CSP is `script-src 'self'`.
export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: true,
    modulePreload: { polyfill: false },
  },
});
