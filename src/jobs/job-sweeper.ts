/**
 * Deletes what has outlived its promise: temporary outputs after their 2 hours, job records after
 * the retention period. Runs on a timer in every process; the work is idempotent.
 */
import type { Logger } from 'pino';
import type { FileStore } from '../files/file-store.ts';
import type { JobStore } from './job-store.ts';

export class JobSweeper {
  readonly #store: JobStore;
  readonly #files: FileStore;
  readonly #retentionMs: number;
  readonly #logger: Logger;
  #timer: NodeJS.Timeout | undefined;

  constructor(deps: { store: JobStore; files: FileStore; logger: Logger }, options: { retentionMs: number }) {
    this.#store = deps.store;
    this.#files = deps.files;
    this.#logger = deps.logger;
    this.#retentionMs = options.retentionMs;
  }

  start(intervalMs = 60_000): void {
    this.#timer = setInterval(() => {
      this.sweep().catch((error) => this.#logger.error({ err: error }, 'sweep failed'));
    }, intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async sweep(now = Date.now()): Promise<{ outputs: number; records: number }> {
    let outputs = 0;
    for (;;) {
      const expired = await this.#store.listOutputsExpiredBefore(now, 100);
      if (expired.length === 0) break;
      for (const job of expired) {
        await this.#files.deletePrefix(`jobs/${job.id}/`);
        await this.#store.clearOutput(job.id);
        outputs++;
      }
    }
    const records = await this.#store.deleteFinishedBefore(now - this.#retentionMs);
    if (outputs + records > 0) this.#logger.info({ outputs, records }, 'swept expired outputs and records');
    return { outputs, records };
  }
}
