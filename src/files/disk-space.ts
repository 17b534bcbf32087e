/**
 * Free space on a local directory's filesystem, for readiness: a process whose disk is nearly full
 * still lives (jobs wait and resume), but should be taken out of rotation before writes start failing.
 */
import { statfs } from 'node:fs/promises';

export interface DiskSpace {
  /** Bytes an unprivileged writer can still use (`bavail`, not `bfree`: root's reserve is not ours). */
  freeBytes: number;
  /** The filesystem's size. */
  totalBytes: number;
  minFreeBytes: number;
  low: boolean;
}

export class DiskSpaceMonitor {
  readonly #path: string;
  readonly #minFreeBytes: number;

  constructor(path: string, minFreeBytes: number) {
    this.#path = path;
    this.#minFreeBytes = minFreeBytes;
  }

  /** One statfs(2) call: cheap enough to run on every health probe, so nothing is cached. */
  async check(): Promise<DiskSpace> {
    const stats = await statfs(this.#path);
    const freeBytes = stats.bavail * stats.bsize;
    return {
      freeBytes,
      totalBytes: stats.blocks * stats.bsize,
      minFreeBytes: this.#minFreeBytes,
      low: freeBytes < this.#minFreeBytes,
    };
  }
}
