/**
 * Puts `PRESSO_SANDBOX` in force before a process takes jobs: `bwrap` is proved to work here (installed,
 * namespaces allowed) or the start fails naming the variable; `off` is logged as the risk it is, at error
 * level, so no operator misses it.
 */
import type { Logger } from 'pino';
import { ConfigError } from '../errors/catalog.ts';
import type { SandboxConfig } from '../processors/shared/config.ts';
import { probeSandbox, setSandboxMode } from '../processors/shared/sandbox.ts';

/** `probe`: whether bubblewrap runs here (undefined) or why not; tests pass a failing one. */
export async function startSandbox(
  config: SandboxConfig,
  logger: Logger,
  probe: () => Promise<string | undefined> = probeSandbox,
): Promise<void> {
  if (config.mode === 'off') {
    setSandboxMode('off');
    logger.error(
      { sandbox: 'off' },
      '!!! PRESSO_SANDBOX=off: external tools (ffmpeg, Ghostscript, LibreOffice, 7-Zip, bsdtar, ...) run ' +
        'WITHOUT a sandbox. A hostile file that makes one of them read a local path or the network can ' +
        'reach the data directory (keys, database, other jobs) and this host’s network. Use it only where ' +
        'bubblewrap cannot run, and only for trusted callers. !!!',
    );
    return;
  }
  const problem = await probe();
  if (problem !== undefined) {
    throw new ConfigError(
      `PRESSO_SANDBOX=bwrap, but bubblewrap cannot run here (${problem}). Install bubblewrap and allow ` +
        'user namespaces (in a container: a seccomp and AppArmor profile that permits them; see ' +
        'docs/sandbox.md), or set PRESSO_SANDBOX=off to run tools unconfined',
    );
  }
  setSandboxMode('bwrap');
  logger.info({ sandbox: 'bwrap' }, 'external tools run in the bubblewrap sandbox');
}
