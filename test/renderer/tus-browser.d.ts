/** tus-js-client's browser build (what Vite bundles for the UI), loaded by its path in the renderer's tests: the package's own API. */
declare module 'tus-js-client/lib.esm/browser/index.js' {
  export * from 'tus-js-client';
}
