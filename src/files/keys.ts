/**
 * File keys and byte ranges as every FileStore checks them, so the local folder and the bucket refuse
 * the same keys with the same errors (the contract suite checks both).
 */
import { NotFoundError } from '../errors/catalog.ts';
import type { ByteRange } from './file-store.ts';

/** A key is non-empty slash-separated segments, none empty, `.`, `..`, or holding NUL or a backslash. */
export function validateKey(key: string): void {
  const invalid = (why: string) => new TypeError(`Invalid file key ${JSON.stringify(key)}: ${why}`);
  if (typeof key !== 'string' || key.length === 0) throw invalid('empty');
  if (key.includes('\0')) throw invalid('contains NUL');
  // A backslash is a separator on Windows; refusing it keeps keys portable and unambiguous.
  if (key.includes('\\')) throw invalid('contains a backslash');
  if (key.startsWith('/')) throw invalid('absolute');
  for (const segment of key.split('/')) {
    if (segment === '') throw invalid('empty segment');
    if (segment === '.' || segment === '..') throw invalid('relative segment');
  }
}

export function validateRange(range: ByteRange): void {
  const ok =
    Number.isSafeInteger(range.start) &&
    Number.isSafeInteger(range.end) &&
    range.start >= 0 &&
    range.end >= range.start;
  if (!ok) throw new RangeError(`Invalid byte range ${range.start}-${range.end}`);
}

/** A prefix for deletePrefix: a key, or a key with one trailing slash (a "folder"). */
export function validatePrefix(prefix: string): void {
  validateKey(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
}

export function notFound(key: string, cause?: unknown): NotFoundError {
  const error = new NotFoundError(`File not found: ${key}`);
  if (cause !== undefined) Object.defineProperty(error, 'cause', { value: cause });
  return error;
}
