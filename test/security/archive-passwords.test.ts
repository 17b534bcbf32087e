/**
 * Archive passwords through POST /1.0/upload (the real archive processor): a wrong `archive.password` is a 422
 * on that field for ZIP (ZipCrypto and AES) and 7z (data or headers encrypted), whether the archive is re-packed
 * as it is, converted or processed in deep mode; the right one opens it and encrypts the output again; and no
 * tool ever has the password on its command line (readable by every process in /proc/<pid>/cmdline): every
 * process the server starts is recorded, whole command line (prlimit, bubblewrap and the tool), as the tool
 * runner and Node announce them (test/support/spawn-watch.ts).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createArchiveProcessor } from '../../src/processors/archive/archive-processor.ts';
import { assertErrorBody, type CompletedResult, download } from '../api/helpers.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';
import { type SpawnWatch, watchSpawns } from '../support/spawn-watch.ts';

const PASSWORD = 'Correct-Horse-7f3a9c';
const WRONG = 'Wrong-Battery-52be01';
const REAL: Record<string, string> = {
  '7zz': execFileSync('bash', ['-c', 'command -v 7zz']).toString().trim(),
  bsdtar: execFileSync('bash', ['-c', 'command -v bsdtar']).toString().trim(),
};

describe('archive passwords through the API', () => {
  let presso: TestApp;
  const scratch = mkdtempSync(join(tmpdir(), 'presso-archive-passwords-'));
  const inputs: Record<string, string> = {};
  /** The argv of every process the server starts (the test's own calls, through execFileSync, are not traced). */
  let spawns: SpawnWatch | undefined;
  const calls: string[][] = [];

  before(async () => {
    spawns = watchSpawns((argv) => calls.push(argv));
    const tree = join(scratch, 'tree');
    mkdirSync(join(tree, 'docs'), { recursive: true });
    writeFileSync(join(tree, 'notes.txt'), 'Presso password test.\n'.repeat(300));
    writeFileSync(join(tree, 'docs/readme.md'), '# Readme\n'.repeat(200));
    const make = (name: string, args: string[]) => {
      execFileSync(REAL['7zz']!, ['a', '-bd', ...args, `-p${PASSWORD}`, join(scratch, name), '.'], {
        cwd: tree,
        stdio: 'pipe',
      });
      inputs[name] = join(scratch, name);
    };
    // Stored, not compressed: every re-pack is smaller, so the answer is the re-packed (re-encrypted) output,
    // not the input returned by the never-larger rule (except a ZIP re-packed in place, which stays as it is).
    make('zipcrypto.zip', ['-tzip', '-mx=0', '-mem=ZipCrypto']);
    make('aes.zip', ['-tzip', '-mx=0', '-mem=AES256']);
    make('data.7z', ['-t7z', '-mx=0']);
    make('headers.7z', ['-t7z', '-mx=0', '-mhe=on']);
    presso = await buildTestApp({ processors: [createArchiveProcessor(() => undefined)] });
  });
  after(async () => {
    spawns?.stop();
    await presso?.close();
    execFileSync('rm', ['-rf', scratch]);
  });

  const PATHS: Record<string, Record<string, unknown>> = {
    're-packed': {},
    converted: { format: 'tar.xz' },
    'deep mode': { deep: true },
  };

  for (const name of ['zipcrypto.zip', 'aes.zip', 'data.7z', 'headers.7z']) {
    test(`${name}: a wrong password is a 422 on archive.password, re-packed, converted and in deep mode`, async () => {
      for (const [path, params] of Object.entries(PATHS)) {
        const response = await presso.upload(
          inputs[name]!,
          { archive: { ...params, password: WRONG } },
          undefined,
          name,
        );
        const body = await assertErrorBody(response, 422);
        const errors = body.errors as { field: string; message: string }[] | undefined;
        assert.equal(errors?.[0]?.field, 'archive.password', `${path}: ${JSON.stringify(body)}`);
        assert.match(errors[0]!.message, /password does not open the archive/, path);
      }
    });

    test(`${name}: the right password opens it; a ZIP or 7z output is encrypted with it`, async () => {
      for (const [path, params] of Object.entries(PATHS)) {
        const response = await presso.upload(
          inputs[name]!,
          { archive: { ...params, password: PASSWORD } },
          undefined,
          name,
        );
        assert.equal(response.status, 200, `${path}: ${await response.clone().text()}`);
        const result = (await response.json()) as CompletedResult;
        const out = join(scratch, `${name}-${path.replace(' ', '-')}.${result.output.format}`);
        const bytes = await download(presso, result);
        writeFileSync(out, bytes);
        const inPlace = path === 're-packed' && name.endsWith('.zip');
        assert.equal(bytes.equals(readFileSync(inputs[name]!)), inPlace, `${path}: re-packed, not the input`);
        if (result.output.format === 'tar.xz') {
          assert.equal(
            execFileSync('tar', ['-xJOf', out, 'notes.txt']).toString(),
            readFileSync(join(scratch, 'tree/notes.txt'), 'utf8'),
          );
          continue;
        }
        assert.throws(() => execFileSync(REAL['7zz']!, ['t', `-p${WRONG}`, out], { stdio: 'pipe' }), path);
        assert.equal(
          execFileSync(REAL['7zz']!, ['x', '-so', `-p${PASSWORD}`, out, 'notes.txt'], {
            stdio: 'pipe',
          }).toString(),
          readFileSync(join(scratch, 'tree/notes.txt'), 'utf8'),
          path,
        );
      }
    });
  }

  test('a password is one line: a line break or NUL in it is a 422 on archive.password', async () => {
    for (const password of [`${PASSWORD}\n${WRONG}`, `${PASSWORD}\r`, `a\u0000b`]) {
      const response = await presso.upload(
        inputs['aes.zip']!,
        { archive: { password } },
        undefined,
        'aes.zip',
      );
      const body = await assertErrorBody(response, 422);
      const errors = body.errors as { field: string }[] | undefined;
      assert.equal(errors?.[0]?.field, 'archive.password', JSON.stringify(body));
    }
  });

  test('no tool had the password on its command line', async () => {
    // Runs after the tests above (a file's tests run in order): every path, right and wrong passwords.
    const ran = (tool: string) => calls.some((argv) => argv.some((arg) => basename(arg) === tool));
    assert.ok(ran('7zz'), 'the server ran 7-Zip');
    assert.ok(ran('bsdtar'), 'the server ran bsdtar');
    for (const argv of calls) {
      const line = argv.join(' ');
      assert.ok(!line.includes(PASSWORD) && !line.includes(WRONG), `a password on a command line: ${line}`);
    }
  });
});
