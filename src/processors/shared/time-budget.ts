/**
 * The time a job may take, earned by its input instead of granted whole: a floor every input gets (enough
 * for an honest small file: tool start-ups, probes, a short encode), plus an allowance for each MiB the input
 * brings and for each unit of work it declares (decoded megapixels of an image or of a video's frames,
 * minutes of audio, pages of a PDF, unpacked MiB of an archive), the smaller of the two, all capped by the
 * kind's configured maximum (`PRESSO_<KIND>_TIME_BUDGET`).
 *
 * Both terms must be earned, so neither buys the budget alone: 98 KB of three 8K frames declare a lot of work
 * but bring almost no bytes, and get little more than the floor; a large file padded around a small picture
 * brings bytes but declares little work. A large honest input earns what it needs, up to the maximum.
 *
 * Counted, not measured: the budget comes from the input's size and header only, so the same input always
 * gets the same budget whatever the machine's load. Bounds in work stay where they are (pixels, frames,
 * pages, members, memory); the Deadline built from this is the last-resort time-out, and external tools'
 * CPU-time limit follows it (run-tool.ts).
 */
import { duration, type Var } from '../../config/env.ts';

const MiB = 1024 * 1024;

/** What one kind's input earns: its own constants beside its limits in the kind's config.ts. */
export interface EarnedTime {
  /** Allowance per MiB of input. */
  msPerMiB: number;
  /** Allowance per unit of declared work (the kind says what a unit is). */
  msPerUnit: number;
}

export interface TimeBudgetLimits {
  /** What every input gets (`PRESSO_<KIND>_TIME_FLOOR`); at or above the maximum, every job gets the maximum. */
  timeFloorMs: number;
  /** The ceiling (`PRESSO_<KIND>_TIME_BUDGET`). */
  timeBudgetMs: number;
}

export interface DeclaredWork {
  /** The input's size. */
  bytes: number;
  /** Units of work its header declares; undefined while not known yet (only the bytes then bound the budget). */
  units?: number | undefined;
}

export function earnedTimeMs(limits: TimeBudgetLimits, earned: EarnedTime, work: DeclaredWork): number {
  const byBytes = (earned.msPerMiB * Math.max(0, work.bytes)) / MiB;
  const byWork =
    work.units === undefined ? Number.POSITIVE_INFINITY : earned.msPerUnit * Math.max(0, work.units);
  const budget = limits.timeFloorMs + Math.min(byBytes, byWork);
  return Math.max(1, Math.round(Math.min(limits.timeBudgetMs, budget)));
}

/**
 * The floor's variable, the same words for every kind: `kind` as in its other variables (`VIDEO`), `subject`
 * what one input is ("video"), `earns` what it earns more with.
 */
export function timeFloor(kind: string, subject: string, defaultMs: number, earns: string): Var<number> {
  return duration(`PRESSO_${kind}_TIME_FLOOR`, {
    default: defaultMs,
    doc:
      `Time budget every ${subject} gets however small; it earns more with ${earns}, up to ` +
      `PRESSO_${kind}_TIME_BUDGET (a floor at or above that budget gives every ${subject} all of it)`,
  });
}
