/**
 * The canary of the archive security tests: a file of random content planted in the server's data directory,
 * and the check that an answer never holds its bytes (raw, or in any file of the output once unpacked by an
 * independent bsdtar, links never followed).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Response } from 'undici';
import { assertErrorBody, type CompletedResult, download } from '../api/helpers.ts';
import type { TestApp } from '../support/http-app.ts';

/** Its name in the data directory (archives name a member so, for the `-C` attack). */
export const CANARY_NAME = 'canary.txt';

export function plantCanary(dataDir: string): string {
  const secret = `canary-${randomBytes(24).toString('hex')}`;
  writeFileSync(join(dataDir, CANARY_NAME), secret);
  return secret;
}

/** Fails when the bytes of an output, or of any regular file inside it, hold the canary. */
export function assertNoCanary(output: Buffer, secret: string, scratch: string): void {
  assert.ok(!output.includes(secret), 'the output holds the canary as it is');
  const dir = mkdtempSync(join(scratch, 'check-'));
  const file = join(dir, 'output');
  writeFileSync(file, output);
  const into = join(dir, 'unpacked');
  execFileSync('mkdir', [into]);
  // Every output these tests can get is a container (ZIP, 7z, a TAR compressed or not): bsdtar reads them all.
  // It may refuse some members (a hard link through a link): what it did unpack is searched all the same.
  try {
    execFileSync('bsdtar', ['-x', '-f', file, '-C', into], { stdio: 'pipe' });
  } catch {}
  for (const path of regularFiles(into)) {
    assert.ok(
      !readFileSync(path).includes(secret),
      `the output's member ${path.slice(into.length)} holds the canary`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Regular files under `dir`, found without following any link (an output may hold links that leave it). */
function regularFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) found.push(...regularFiles(path));
    else if (stat.isFile()) found.push(path);
  }
  return found;
}

/**
 * Uploads `file` and expects the documented 422 whose message matches `why`; an answer of 200 is first
 * searched for the canary, so a leak is reported as a leak.
 */
export async function expectRefused(
  presso: TestApp,
  file: string,
  data: Record<string, unknown>,
  why: RegExp,
  canary: { secret: string; scratch: string },
): Promise<Record<string, unknown>> {
  const response: Response = await presso.upload(file, data, undefined, file.split('/').at(-1));
  if (response.status === 200) {
    const result = (await response.json()) as CompletedResult;
    assertNoCanary(await download(presso, result), canary.secret, canary.scratch);
    assert.fail(`answered 200 (${result.output.format}, ${result.output.size} bytes) instead of 422`);
  }
  const body = await assertErrorBody(response, 422);
  assert.match(String(body.message), why);
  return body;
}
