/**
 * Job change events for the scaled-out mode: Redis pub/sub, because the API process holding a waiting
 * synchronous request is not the worker that finishes the job. One subscriber connection per process
 * (a connection in subscribe mode can do nothing else), one channel per watched job, shared by every
 * watch on it. `watch()` resolves only once Redis has confirmed the subscription, so a change published
 * after it is delivered (subscribe before read, as the interface asks).
 */
import type { Redis } from 'ioredis';
import { ChangeLatch, type JobEvents, type JobWatch } from './job-events.ts';

export class RedisJobEvents implements JobEvents {
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #prefix: string;
  /** Open watches per channel: the channel is unsubscribed when its last watch closes. */
  readonly #watches = new Map<string, Set<ChangeLatch>>();

  /**
   * `publisher` is a shared command connection (it stays the caller's); `subscriber` is this object's
   * own connection, put in subscribe mode and closed by `close()`.
   */
  constructor(publisher: Redis, subscriber: Redis, keyPrefix: string) {
    this.#publisher = publisher;
    this.#subscriber = subscriber;
    this.#prefix = `${keyPrefix}job-changed:`;
    this.#subscriber.on('message', (channel: string) => {
      for (const latch of this.#watches.get(channel) ?? []) latch.signal();
    });
  }

  async publishChanged(jobId: string): Promise<void> {
    await this.#publisher.publish(this.#prefix + jobId, '1');
  }

  async watch(jobId: string): Promise<JobWatch> {
    const channel = this.#prefix + jobId;
    let latches = this.#watches.get(channel);
    if (latches === undefined) {
      latches = new Set();
      this.#watches.set(channel, latches);
    }
    const set = latches;
    const latch: ChangeLatch = new ChangeLatch(() => {
      set.delete(latch);
      if (set.size === 0 && this.#watches.get(channel) === set) {
        this.#watches.delete(channel);
        this.#subscriber.unsubscribe(channel).catch(() => {});
      }
    });
    set.add(latch);
    // Every watch waits for Redis's confirmation (subscribing again is harmless): a second watch may come
    // before the first one's subscription is confirmed.
    await this.#subscriber.subscribe(channel);
    return latch;
  }

  openWatches(): number {
    let count = 0;
    for (const set of this.#watches.values()) count += set.size;
    return count;
  }

  /** Releases every waiting `next()` with false and closes the subscriber connection. */
  async close(): Promise<void> {
    for (const set of [...this.#watches.values()]) for (const latch of [...set]) latch.close();
    this.#watches.clear();
    this.#subscriber.disconnect();
  }
}
