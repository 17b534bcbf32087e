/**
 * The error catalog is the one place codes are defined: the set is pinned here (a new code is a
 * deliberate change to this list and to docs/api.md), and no code is minted anywhere else.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import {
  ERRORS,
  fromRecord,
  InsufficientStorageError,
  InternalError,
  PayloadTooLargeError,
  PressoError,
  RangeNotSatisfiableError,
  UnsupportedContentTypeError,
  ValidationError,
} from '../../src/errors/catalog.ts';

const root = join(import.meta.dirname, '..', '..');

const PINNED: Record<string, number> = {
  BAD_REQUEST: 400,
  MALFORMED_MULTIPART: 400,
  UNAUTHORIZED: 401,
  HTTPS_REQUIRED: 403,
  FORBIDDEN: 403,
  ACCOUNT_DISABLED: 403,
  CSRF_FAILED: 403,
  CONFLICT: 409,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_CONTENT_TYPE: 415,
  UNSUPPORTED_MEDIA: 415,
  RANGE_NOT_SATISFIABLE: 416,
  VALIDATION_FAILED: 422,
  INVALID_JSON: 422,
  INPUT_UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  TOO_MANY_UPLOADS: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  TOOL_MISSING: 422,
  UPSTREAM_FAILED: 502,
  STORE_WRITE_FAILED: 502,
  UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

test('the catalog holds exactly the pinned codes, each with its status', () => {
  const actual = Object.fromEntries(Object.entries(ERRORS).map(([code, entry]) => [code, entry.status]));
  assert.deepEqual(actual, PINNED);
  for (const [code, entry] of Object.entries(ERRORS)) {
    assert.ok(entry.message.length > 0 && entry.message.endsWith('.'), `${code} has a public message`);
  }
});

test('docs/api.md documents every code with its status', () => {
  const doc = readFileSync(join(root, 'docs', 'api.md'), 'utf8');
  for (const [code, status] of Object.entries(PINNED)) {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
    assert.ok(row, `docs/api.md has no row for ${code}`);
    assert.ok(
      row.startsWith(`| \`${code}\` | ${status} |`),
      `docs/api.md gives ${code} another status: ${row}`,
    );
  }
});

test('no PressoError is built outside src/errors, and errors are recognised by class, not shape', () => {
  const offenders: string[] = [];
  for (const file of sourceFiles(join(root, 'src'))) {
    const path = relative(root, file);
    const text = readFileSync(file, 'utf8');
    if (!path.startsWith(join('src', 'errors')) && /new PressoError\(/.test(text)) offenders.push(path);
    if (/'statusCode' in /.test(text)) offenders.push(`${path} (shape test)`);
  }
  assert.deepEqual(offenders, []);
});

test('the status comes from the catalog, whatever subclass throws', () => {
  const errors: PressoError[] = [
    new UnsupportedContentTypeError('application/json'),
    new RangeNotSatisfiableError(10),
    new PayloadTooLargeError(5, 'The data field'),
    ValidationError.field('url', 'is required'),
    new InsufficientStorageError(new Error('ENOSPC')),
  ];
  for (const error of errors) {
    assert.ok(error instanceof PressoError);
    assert.equal(error.statusCode, ERRORS[error.code].status, error.code);
  }
  assert.equal(errors[0]!.message, 'Content-Type must be application/json.');
  assert.equal(errors[1]!.headers['content-range'], 'bytes */10');
  assert.equal(errors[2]!.message, 'The data field is larger than the maximum of 5 bytes.');
  assert.equal(errors[4]!.message, 'The server is out of storage space; retry later.');
  assert.equal(errors[4]!.statusCode, 507);
});

test('a stored failure comes back with its code, status and message; an unknown code becomes a 500', () => {
  const stored = ValidationError.field('image.resize', 'must be an object').toRecord();
  const rebuilt = fromRecord(stored);
  assert.ok(rebuilt instanceof PressoError);
  assert.deepEqual(rebuilt.toRecord(), stored);

  const unknown = fromRecord({ code: 'TEAPOT', status: 418, message: 'I am a teapot.' });
  assert.ok(unknown instanceof InternalError);
  assert.equal(unknown.statusCode, 500);
  assert.doesNotMatch(
    unknown.message,
    /teapot/i,
    'the stored text of an unknown code is logged, not returned',
  );
});
