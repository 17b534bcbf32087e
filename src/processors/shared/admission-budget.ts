/**
 * Bounds what the jobs of one process hold at once, in units the processor chooses: bytes of decoded
 * image data for images (memory grows with them: libvips' decoded image, the quality search's reference,
 * so two 24 MP photos at once cost far more than two phone snapshots; sized by image/limits.ts
 * `memoryShare`), CPU-seconds or concurrent encodes for video.
 * Jobs take a share equal to their units and wait, in arrival order, while the budget is spent; a job
 * larger than the whole budget runs alone. Small jobs keep every worker busy; only large ones take turns.
 */

interface Waiter {
  weight: number;
  grant: () => void;
}

export class AdmissionBudget {
  readonly capacity: number;
  #inUse = 0;
  readonly #waiters: Waiter[] = [];

  constructor(capacity: number) {
    if (!(capacity > 0)) throw new RangeError('admission budget must be positive');
    this.capacity = capacity;
  }

  get inUse(): number {
    return this.#inUse;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  /** Resolves with a release function once `units` fit; rejects with the signal's reason on abort. */
  acquire(units: number, signal?: AbortSignal): Promise<() => void> {
    const weight = Math.min(Math.max(1, units), this.capacity);
    signal?.throwIfAborted();
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.#inUse -= weight;
      this.#drain();
    };
    if (this.#waiters.length === 0 && this.#inUse + weight <= this.capacity) {
      this.#inUse += weight;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        weight,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const onAbort = () => {
        const index = this.#waiters.indexOf(waiter);
        if (index !== -1) this.#waiters.splice(index, 1);
        this.#drain();
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** First come, first served: a large job at the head is not overtaken by smaller ones behind it. */
  #drain(): void {
    while (this.#waiters.length > 0 && this.#inUse + this.#waiters[0]!.weight <= this.capacity) {
      const next = this.#waiters.shift()!;
      this.#inUse += next.weight;
      next.grant();
    }
  }
}
