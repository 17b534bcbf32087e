/**
 * The built dashboard the tests serve: scripts/setup.sh builds it before the suite; a test file run on its
 * own builds it here when it is missing or older than any of its sources (the same rule and `vite build` as
 * the set-up), so a test never drives a stale build of pages it was written for.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_DASHBOARD_DIR } from '../../src/http/app.ts';

const repoRoot = resolve(import.meta.dirname, '..', '..');

/** The newest modification time of the dashboard's sources and the lock file. */
function newestSource(): number {
  let newest = statSync(join(repoRoot, 'package-lock.json')).mtimeMs;
  for (const entry of readdirSync(join(repoRoot, 'dashboard'), { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

export function ensureDashboardBuilt(): string {
  const index = join(DEFAULT_DASHBOARD_DIR, 'index.html');
  if (!existsSync(index) || statSync(index).mtimeMs < newestSource()) {
    execFileSync(
      process.execPath,
      [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '-c', 'dashboard/vite.config.ts'],
      { cwd: repoRoot, stdio: 'pipe' },
    );
  }
  return DEFAULT_DASHBOARD_DIR;
}
