/**
 * Races in-process work (a sharp pipeline, a native encoder call) against the job's deadline and abort
 * signal. Such work cannot always be interrupted: some encoders (AVIF, WebP) compress in one native call.
 * The job then answers at the deadline or on abort, and the work, handed to `onAbandon`, is left to
 * finish on its own; the caller keeps its admission-budget share until it does, so abandoned work cannot
 * pile up in memory. Work that must be stoppable belongs in a tool process (run-tool.ts).
 */
import type { Deadline } from './deadline.ts';

export interface BudgetRace {
  deadline: Deadline;
  signal: AbortSignal;
  /** Receives work given up at the deadline or on abort that is still running. */
  onAbandon: (work: Promise<unknown>) => void;
  /** Maps the work's own failure to the service's error (the abort reason is passed through as is). */
  toError?: (error: unknown) => unknown;
}

export async function withinBudget<T>(work: Promise<T>, race: BudgetRace): Promise<T> {
  const { deadline, signal } = race;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    const giveUp = (reason: unknown) => {
      race.onAbandon(work);
      reject(reason);
    };
    if (signal.aborted) return giveUp(signal.reason);
    let left: number;
    try {
      left = deadline.remainingMs();
    } catch (exceeded) {
      return giveUp(exceeded);
    }
    timer = setTimeout(() => giveUp(deadline.exceeded()), left);
    onAbort = () => giveUp(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  work.catch(() => {}); // abandoned work may still fail later
  try {
    return await Promise.race([work, stop]).catch((error: unknown) => {
      if (signal.aborted) throw signal.reason;
      throw race.toError === undefined ? error : race.toError(error);
    });
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}
