/**
 * A cap on uploads in progress per API key, so one key cannot hold every connection, upload slot and
 * working directory of the process. Counted per process: each API process of a scaled-out deployment
 * applies it on its own.
 */
export class UploadSlots {
  readonly #max: number;
  readonly #held = new Map<string, number>();

  /** `max`: uploads in progress per key; 0 turns the cap off. */
  constructor(max: number) {
    this.#max = max;
  }

  get max(): number {
    return this.#max;
  }

  /** A release function (call it once, when the upload ends), or undefined when the key is at its cap. */
  acquire(key: string): (() => void) | undefined {
    const held = this.#held.get(key) ?? 0;
    if (this.#max > 0 && held >= this.#max) return undefined;
    this.#held.set(key, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#held.get(key) ?? 1) - 1;
      if (left > 0) this.#held.set(key, left);
      else this.#held.delete(key);
    };
  }
}
