/**
 * Names the worker that runs each job, for the operator's "workers and their jobs": `host:pid:slot`, where the
 * slot is the lowest number free in this process while the run lasts. A process running N jobs at once uses
 * slots 1..N, so the names stay the same set run after run and two runs at once never share one.
 */
import { hostname } from 'node:os';

export class WorkerSlots {
  readonly #prefix: string;
  readonly #busy = new Set<number>();

  constructor(host: string = hostname(), pid: number = process.pid) {
    this.#prefix = `${host}:${pid}`;
  }

  /** The lowest free slot's worker id, now taken until `release`. */
  take(): string {
    let slot = 1;
    while (this.#busy.has(slot)) slot += 1;
    this.#busy.add(slot);
    return `${this.#prefix}:${slot}`;
  }

  release(worker: string): void {
    this.#busy.delete(Number(worker.slice(this.#prefix.length + 1)));
  }
}
