/**
 * Safety time-outs in tests (hang guards, a fixture's tool time-out, a server's start) are there to end a run
 * that would never end, never to judge speed. They scale with one variable, PRESSO_TEST_TIME_SCALE (default
 * 1): on a machine busy with other work, `PRESSO_TEST_TIME_SCALE=5 npm test` gives every guard five times
 * as long. A test that checks a budget counts work instead (trials, elements, ticks), not seconds.
 */
export const TIME_SCALE = timeScale(process.env.PRESSO_TEST_TIME_SCALE);

function timeScale(text: string | undefined): number {
  if (text === undefined || text === '') return 1;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 1) {
    throw new Error(`PRESSO_TEST_TIME_SCALE must be a number >= 1, not ${JSON.stringify(text)}`);
  }
  return value;
}

/** `ms` of a safety time-out, scaled by PRESSO_TEST_TIME_SCALE. */
export function scaledMs(ms: number): number {
  return Math.round(ms * TIME_SCALE);
}

/**
 * Limits for a processor a test builds to judge its output, not its speed: a busy machine must not push a
 * document past its 3 min default budget (seen under load). The tests of time budgets set their own.
 */
export const NO_TIME_PRESSURE = { timeBudgetMs: 30 * 60_000, timeFloorMs: 30 * 60_000 } as const;
