/**
 * Query parameters of the list routes (jobs, webhook deliveries): opaque keyset cursors, page sizes, times
 * and sizes. The query string is not coerced by the schema validator, so each arrives as a string and is
 * parsed here; a bad value is a 422 naming its parameter.
 */
import { Type } from '#typebox';
import { ValidationError } from '../errors/catalog.ts';

/** Where a page ended: the last item's creation time and id. */
export interface ListPosition {
  createdAt: number;
  id: string;
}

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

export const PageQuerySchema = {
  cursor: Type.Optional(
    Type.String({
      maxLength: 200,
      description: 'The `nextCursor` of the previous page; absent for the first.',
    }),
  ),
  limit: Type.Optional(
    Type.String({
      maxLength: 3,
      description: `Items per page, 1–${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}).`,
    }),
  ),
};

export const NextCursorSchema = Type.Optional(
  Type.String({ description: 'Pass as `cursor` for the next page; absent on the last page.' }),
);

export function encodeCursor(position: ListPosition | undefined): string | undefined {
  if (position === undefined) return undefined;
  return Buffer.from(`${position.createdAt}.${position.id}`).toString('base64url');
}

export function decodeCursor(text: string | undefined): ListPosition | undefined {
  if (text === undefined || text === '') return undefined;
  const plain = Buffer.from(text, 'base64url').toString('utf8');
  const dot = plain.indexOf('.');
  const createdAt = dot > 0 ? wholeNumber(plain.slice(0, dot)) : undefined;
  const id = plain.slice(dot + 1);
  if (createdAt === undefined || id === '')
    throw ValidationError.field('cursor', 'is not a cursor of this list');
  return { createdAt, id };
}

export function pageSize(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PAGE_SIZE;
  const size = wholeNumber(text);
  if (size === undefined || size < 1 || size > MAX_PAGE_SIZE)
    throw ValidationError.field('limit', `must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  return size;
}

/** A byte count (a non-negative whole number). */
export function byteCount(field: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = wholeNumber(text);
  if (value === undefined) throw ValidationError.field(field, 'must be a whole number of bytes');
  return value;
}

/** An ISO 8601 date (`2026-11-26`, midnight UTC) or date-time, as milliseconds. */
export function time(field: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw ValidationError.field(field, 'must be an ISO 8601 date or date-time');
  return ms;
}

/** Digits only, within the safe integers; undefined otherwise. */
function wholeNumber(text: string): number | undefined {
  if (text.length === 0 || text.length > 15) return undefined;
  for (const char of text) if (char < '0' || char > '9') return undefined;
  return Number(text);
}
