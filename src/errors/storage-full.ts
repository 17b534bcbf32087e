/**
 * Recognises "out of space" wherever it comes from: a file write (ENOSPC, or EDQUOT over a quota),
 * SQLite (SQLITE_FULL, "database or disk is full"), or a library that only kept the message (sharp
 * and external tools report libc's text). Wrappers are looked through: a processor may have turned
 * the failure into a 422 whose cause is the real reason.
 */
import { InsufficientStorageError } from './catalog.ts';

const SQLITE_FULL = 13;
const MESSAGES = /no space left on device|disk quota exceeded|database or disk is full/i;

export function isStorageFull(error: unknown): boolean {
  let current: unknown = error;
  // Bounded: a cause chain can be cyclic.
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof InsufficientStorageError) return true;
    const { code, errcode } = current as { code?: unknown; errcode?: unknown };
    if (code === 'ENOSPC' || code === 'EDQUOT') return true;
    // Extended result codes keep the primary code in the low byte.
    if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' && (errcode & 0xff) === SQLITE_FULL)
      return true;
    if (MESSAGES.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

/** The catalogued 507 for an out-of-space failure, or the error unchanged. */
export function storageErrorOr<T>(error: T): InsufficientStorageError | T {
  if (error instanceof InsufficientStorageError || !isStorageFull(error)) return error;
  return new InsufficientStorageError(error);
}
