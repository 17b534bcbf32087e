/**
 * The built dashboard the tests serve: scripts/setup.sh builds it before the suite; a test file run on its
 * own builds it here when it is missing (the same `vite build` the set-up runs).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_DASHBOARD_DIR } from '../../src/http/app.ts';

const repoRoot = resolve(import.meta.dirname, '..', '..');

export function ensureDashboardBuilt(): string {
  if (!existsSync(join(DEFAULT_DASHBOARD_DIR, 'index.html'))) {
    execFileSync(
      process.execPath,
      [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '-c', 'dashboard/vite.config.ts'],
      { cwd: repoRoot, stdio: 'pipe' },
    );
  }
  return DEFAULT_DASHBOARD_DIR;
}
