/**
 * presso-client as a user runs it (a child process, key and CA from the environment or `login`'s config)
 * against a started server: a folder of real files of several kinds with the summary checked, an
 * interrupted batch (SIGINT) resumed with nothing done twice, login's 0600 file, webhooks verify.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { signWebhook } from '../../src/webhooks/signature.ts';
import { corpus, corpusDir } from '../support/corpus.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { type CliRun, cliEvents, cliFiles, pressoClientBin, runCli } from '../support/presso-client-cli.ts';
import { smallCorpus } from '../support/small-corpus.ts';

const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex');
const cli = runCli;
const events = cliEvents;
const filesOf = cliFiles;

describe('presso-client CLI', () => {
  let presso: TestPresso;
  let scratch: string;
  let env: Record<string, string>;

  before(async () => {
    presso = await startTestPresso();
    scratch = await mkdtemp(join(tmpdir(), 'presso-cli-'));
    const ca = join(scratch, 'ca.pem');
    await writeFile(ca, presso.presso.tls!.cert);
    env = {
      PRESSO_URL: presso.url,
      PRESSO_API_KEY: presso.key,
      PRESSO_CA_CERT: ca,
      PRESSO_CLIENT_CONFIG: join(scratch, 'none.json'),
    };
  });
  after(async () => {
    await presso?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  test('a folder of several kinds: outputs, manifest, summary; a failure named and exit 1; globs', async () => {
    const input = join(scratch, 'mixed');
    await mkdir(join(input, 'nested'), { recursive: true });
    // Real files of each kind, small ones: the CLI's batch is under test, not the processors' searches.
    const files: [string, string][] = [
      [smallCorpus.canonPhoto, 'photo.jpg'],
      [corpus.palettePng, 'nested/palette.png'],
      [corpus.animatedGif, 'anim.gif'],
      [corpus.pdf, 'nested/text.pdf'],
      [corpus.mp3, 'sound.mp3'],
      [corpus.truncatedJpeg, 'broken.jpg'],
      [corpus.xcf, 'skip.xcf'],
    ];
    for (const [from, to] of files) await copyFile(from, join(input, to));
    const out = join(scratch, 'mixed-out');
    const run = await cli(
      ['compress', input, '--out', out, '--json', '--concurrency', '2', '--exclude', '*.xcf'],
      env,
    );
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(filesOf(run, 'done'), [
      'anim.gif',
      'nested/palette.png',
      'nested/text.pdf',
      'photo.jpg',
      'sound.mp3',
    ]);
    const failed = events(run).filter((e) => e.event === 'failed');
    assert.deepEqual(
      failed.map((e) => e.file),
      ['broken.jpg'],
    );
    const summary = events(run).find((e) => e.event === 'summary')!;
    assert.equal(summary.files, 6, 'the excluded file is not in the batch');
    assert.equal(summary.done, 5);
    const manifest = JSON.parse(await readFile(join(out, '.presso-manifest.json'), 'utf8')).files;
    let bytesIn = 0;
    let bytesOut = 0;
    for (const [file, entry] of Object.entries(manifest) as [
      string,
      { inputSha1: string; output: string; outputSha1: string; bytesIn: number; bytesOut: number },
    ][]) {
      assert.equal(entry.inputSha1, sha1(await readFile(join(input, file))));
      const output = await readFile(join(out, entry.output));
      assert.equal(sha1(output), entry.outputSha1, `${file}'s output is the job's`);
      assert.equal(output.length, entry.bytesOut);
      bytesIn += entry.bytesIn;
      bytesOut += entry.bytesOut;
    }
    assert.equal(summary.bytesIn, bytesIn);
    assert.equal(summary.bytesOut, bytesOut);
    assert.ok(bytesOut < bytesIn);
    assert.ok((await stat(join(out, 'nested'))).isDirectory(), 'the folder structure is kept');

    // Not a TTY and no --json: plain lines and the summary table; --resume redoes only the failure.
    const again = await cli(['compress', input, '--out', out, '--resume', '--exclude', '*.xcf'], env);
    assert.equal(again.code, 1);
    assert.equal(again.stdout.match(/^skipped [^(]/gm)?.length, 5, again.stdout);
    assert.match(again.stdout, /^failed broken\.jpg: /m);
    assert.match(again.stdout, /^files +6$/m);
    assert.match(again.stdout, /^compressed +0$/m);
    assert.match(again.stdout, /^skipped \(resumed\) +5$/m);
    assert.match(again.stdout, /^failed +1$/m);
    assert.match(again.stdout, /^saved +.+ \(\d+\.\d%\)$/m);
    assert.match(again.stdout, /^FAILED broken\.jpg: /m);
  });

  test('SIGINT mid-way, then --resume: every file done exactly once', async () => {
    const input = join(scratch, 'images');
    await mkdir(input, { recursive: true });
    const pictures = (await readdir(join(corpusDir, 'usr/share/desktop-base'), { recursive: true }))
      .filter((p) => /\.(png|jpg)$/.test(p))
      .sort();
    let count = 0;
    for (const picture of pictures) {
      const path = join(corpusDir, 'usr/share/desktop-base', picture);
      if ((await stat(path)).size > 150_000 || count >= 14) continue;
      await copyFile(
        path,
        join(input, `${String(count++).padStart(2, '0')}-${picture.replaceAll('/', '_')}`),
      );
    }
    assert.equal(count, 14);
    const out = join(scratch, 'images-out');
    let done = 0;
    const first = await cli(['compress', input, '--out', out, '--json', '--concurrency', '2'], env, {
      onLine: (line, child) => {
        if (JSON.parse(line).event === 'done' && ++done === 4) child.kill('SIGINT');
      },
    });
    assert.equal(first.code, 130, first.stderr);
    const summary = events(first).find((e) => e.event === 'summary')!;
    assert.equal(summary.interrupted, true);
    const doneFirst = filesOf(first, 'done');
    assert.ok(
      doneFirst.length >= 4 && doneFirst.length < 14,
      `${doneFirst.length} done before the interrupt`,
    );
    assert.deepEqual(filesOf(first, 'failed'), [], 'an interrupted file is not a failure');

    const second = await cli(
      ['compress', input, '--out', out, '--json', '--concurrency', '2', '--resume'],
      env,
    );
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(filesOf(second, 'skipped'), doneFirst, 'what was done is skipped');
    const doneSecond = filesOf(second, 'done');
    assert.deepEqual(
      doneSecond.filter((f) => doneFirst.includes(f)),
      [],
      'nothing done twice',
    );
    assert.deepEqual([...doneFirst, ...doneSecond].sort(), (await readdir(input)).sort());
    const manifest = JSON.parse(await readFile(join(out, '.presso-manifest.json'), 'utf8')).files;
    assert.equal(Object.keys(manifest).length, 14);
  });

  test('login writes a 0600 config the other commands use; webhooks verify; job and account', async () => {
    const config = join(scratch, 'config', 'client.json');
    const loginEnv = { PRESSO_CLIENT_CONFIG: config };
    const login = await cli(['login', '--url', presso.url, '--ca', env.PRESSO_CA_CERT!], loginEnv, {
      stdin: `${presso.key}\n`,
    });
    assert.equal(login.code, 0, login.stderr);
    assert.equal((await stat(config)).mode & 0o777, 0o600);
    assert.equal(JSON.parse(await readFile(config, 'utf8')).apiKey, presso.key);
    const account = await cli(['account'], loginEnv);
    assert.equal(account.code, 0, account.stderr);
    assert.equal(JSON.parse(account.stdout).id, presso.account.id);
    const noKey = await cli(['account'], { PRESSO_CLIENT_CONFIG: join(scratch, 'missing.json') });
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /PRESSO_API_KEY/);

    const upload = (await (await presso.upload(corpus.palettePng, { async: true })).json()) as { id: string };
    const job = await cli(['job', upload.id, '--wait'], loginEnv);
    assert.equal(JSON.parse(job.stdout).status, 'completed');
    assert.equal(JSON.parse((await cli(['connectors', 'list'], loginEnv)).stdout).length, 0);

    const secret = presso.account.webhookSecret;
    const body = JSON.stringify({ id: upload.id, status: 'completed' });
    const now = Math.floor(Date.now() / 1000);
    const args = ['webhooks', 'verify', '--secret', secret, '--id', 'msg_1', '--timestamp', String(now)];
    const valid = await cli(
      [...args, '--signature', signWebhook(secret, 'msg_1', now, body)],
      {},
      { stdin: body },
    );
    assert.equal(valid.code, 0);
    assert.equal(valid.stdout, 'valid\n');
    const tampered = await cli(
      [...args, '--signature', signWebhook(secret, 'msg_1', now, body)],
      {},
      { stdin: `${body} ` },
    );
    assert.equal(tampered.code, 1);
    assert.match(tampered.stdout, /^invalid/);
  });
  test('on a terminal: bars per file and overall (files, bytes, rate, ETA), then the summary table', async () => {
    const input = join(scratch, 'tty');
    await mkdir(input, { recursive: true });
    await copyFile(corpus.palettePng, join(input, 'palette.png'));
    await copyFile(smallCorpus.canonPhoto, join(input, 'photo.jpg'));
    const out = join(scratch, 'tty-out');
    // util-linux `script` gives the CLI a pseudo-terminal, as an interactive shell would.
    const command = [process.execPath, pressoClientBin, 'compress', input, '--out', out]
      .map((a) => `'${a}'`)
      .join(' ');
    const run = await new Promise<CliRun>((ok) => {
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        env: { ...process.env, ...env, COLUMNS: '100' },
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk;
      });
      child.once('close', (code) => ok({ code, stdout, stderr: '' }));
    });
    assert.equal(run.code, 0, run.stdout);
    assert.match(run.stdout, /\[#*-*\] +\d\/2 files +[\d.]+ [KM]?B\/[\d.]+ [KM]?B +[\d.]+ [KM]?B\/s +ETA /);
    assert.match(run.stdout, /ok photo\.jpg .* -> /);
    assert.ok(
      run.stdout.includes('\u001b[2A'),
      'bars are redrawn in place (cursor up over the last drawing)',
    );
    assert.match(run.stdout, /compressed +2/);
  });
});
