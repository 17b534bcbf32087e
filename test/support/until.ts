import { scaledMs } from './time-scale.ts';

/**
 * Waits until `check` gives a truthy value, polling, and returns that value. Not a timing assertion: how long
 * it takes never fails a test. The one limit is a last-resort hang guard, far above anything a busy machine
 * needs, scaled by PRESSO_TEST_TIME_SCALE (a condition that can never come true would otherwise hang the whole run). performance.now(), because
 * a test mocks Date.
 */
const HANG_GUARD_MS = scaledMs(120_000);

/** `everyMs`: the polling interval (a check that costs a request wants a slower one). */
export async function until<T>(
  check: () => T | Promise<T>,
  what = 'the condition',
  everyMs = 5,
): Promise<NonNullable<T>> {
  const guard = performance.now() + HANG_GUARD_MS;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (performance.now() > guard) throw new Error(`hung: ${what} never came true`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Reads a value until `isDone` accepts it, polling, and returns the last one read: for a wait whose caller
 * asserts on what is left (processes still alive) with its own message. Like `until`, the hang guard is the
 * only limit, and how long it takes never fails a test.
 */
export async function settled<T>(
  read: () => Promise<T>,
  isDone: (value: T) => boolean,
  everyMs = 50,
): Promise<T> {
  let last!: T;
  await until(
    async () => {
      last = await read();
      return isDone(last);
    },
    'the value to settle',
    everyMs,
  ).catch(() => {}); // past the hang guard: the caller asserts on what is left
  return last;
}
