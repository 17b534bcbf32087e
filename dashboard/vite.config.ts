/**
 * The dashboard's build (scripts/setup.sh runs it): Preact with TypeScript, served by the API process under
 * /dashboard/ from dist/dashboard. Nothing is inlined into index.html (the Content-Security-Policy allows
 * no inline script or style), and asset names carry their content hash (they are cached for a year).
 */
import { resolve } from 'node:path';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/dashboard/',
  publicDir: resolve(import.meta.dirname, 'public'),
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: resolve(import.meta.dirname, '..', 'dist', 'dashboard'),
    emptyOutDir: true,
    target: 'es2022',
    // The polyfill is for browsers without modulepreload; every browser the dashboard supports has it.
    modulePreload: { polyfill: false },
    // data: URLs are allowed for images only; keep every other asset a file.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
