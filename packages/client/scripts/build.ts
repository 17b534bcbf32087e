/**
 * Builds the package for installing as a dependency: Node does not strip types under node_modules, so
 * `dist/` holds JavaScript, `.d.ts` declarations and source maps, made by tsc from `src/`
 * (tsconfig.build.json). tsc rewrites `./x.ts` imports to `./x.js` in the JavaScript but keeps them in the
 * declarations; they are rewritten here so a consumer's TypeScript (of any settings) resolves them.
 * Run by `npm run build -w @presso/client`, by `npm pack` (prepack) and by scripts/setup.sh when stale.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const packageDir = resolve(import.meta.dirname, '..');
const dist = join(packageDir, 'dist');
// typescript exports no ./bin/tsc; its package.json path gives the folder.
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin/tsc');

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', join(packageDir, 'tsconfig.build.json')], { stdio: 'inherit' });

// Relative specifiers only (they start with a dot), in `from '...'` and `import('...')`.
const relativeTs = /((?:from\s+|import\()['"]\.{1,2}\/[^'"\n]*)\.ts(['"])/g;
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
  const path = join(entry.parentPath, entry.name);
  const text = readFileSync(path, 'utf8');
  const rewritten = text.replace(relativeTs, '$1.js$2');
  if (rewritten !== text) writeFileSync(path, rewritten);
}
