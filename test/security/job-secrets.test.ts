/**
 * Finding 7 of issue 21 (the job record): a fetch's headers and the passwords of an archive and a PDF are kept
 * only while their job may run, encrypted, and wiped when it ends. The jobs are queued on a server with no
 * workers, which is killed; the restarted server runs them with their secrets, and neither the database files
 * (main, WAL, shared memory), nor the API's answers, nor the webhook, nor the logs (at debug) ever hold one.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createLogger } from '../../src/runtime/logger.ts';
import type { CompletedResult } from '../api/helpers.ts';
import { download } from '../api/helpers.ts';
import { corpus } from '../support/corpus.ts';
import { servePng } from '../support/fetch-source.ts';
import {
  createAccountCli,
  type SpawnedPresso,
  spawnPresso,
  type TestClient,
  testClient,
} from '../support/presso.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';

/** The database files of a data directory as they are on disk, joined: presso.db, -wal, -shm. */
async function databaseBytes(dataDir: string): Promise<Buffer> {
  const names = (await readdir(dataDir)).filter((name) => name.startsWith('presso.db'));
  assert.ok(names.includes('presso.db'));
  return Buffer.concat(await Promise.all(names.map((name) => readFile(join(dataDir, name)))));
}

function assertHoldsNone(bytes: Buffer | string, secrets: string[], where: string): void {
  for (const secret of secrets) assert.ok(!bytes.includes(secret), `${where} holds the secret ${secret}`);
}

describe('caller secrets in job records', () => {
  const children: SpawnedPresso[] = [];
  const clients: TestClient[] = [];
  const receivers: Receiver[] = [];
  const dirs: string[] = [];
  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    for (const child of children) await child.kill('SIGKILL');
    for (const receiver of receivers) await receiver.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  test('a job, a request body or parsed parameters logged whole show none of their secrets', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    const secrets = {
      headers: { Authorization: 'Bearer tok-1', Cookie: 'sid=2' },
      archive: { password: 'zip-3' },
    };
    const body = { url: 'https://x.test/a', ...secrets, pdf: { password: 'pdf-4' } };
    logger.info({ body }, 'a fetch body');
    logger.info({ job: { source: { type: 'fetch', ...body }, params: { pdf: body.pdf } } }, 'a job');
    logger.info({ request: { params: {}, secrets } }, 'a parsed request');
    logger.info({ req: { method: 'POST', headers: { authorization: 'Bearer tok-1' } } }, 'a request');
    assert.equal(lines.length, 4);
    assertHoldsNone(lines.join(''), ['tok-1', 'sid=2', 'zip-3', 'pdf-4'], 'the log');
  });

  test('survive a restart while queued, sealed; are wiped when the jobs end; are in no file, answer or log', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'presso-secrets-'));
    const inputs = await mkdtemp(join(tmpdir(), 'presso-secrets-inputs-'));
    dirs.push(dataDir, inputs);
    const { key } = await createAccountCli(dataDir, 'secrets');
    const secret = {
      token: `Bearer tok-${randomUUID()}`,
      cookie: `sid=${randomUUID()}`,
      zip: `zip-${randomUUID()}`,
      pdf: `pdf-${randomUUID()}`,
    };
    const all = Object.values(secret);

    // A real PNG cheap to search (~0.1 CPU-s; chelsea.png's ~1.2): the secrets are under test, not the image.
    const png = await readFile(corpus.palettePng);
    const source = await startReceiver((req, res) => {
      if (req.headers.authorization !== secret.token || req.headers.cookie !== secret.cookie) {
        res.writeHead(401).end();
        return;
      }
      servePng(res, png);
    });
    const hook = await startReceiver((_req, res) => void res.writeHead(204).end());
    receivers.push(source, hook);
    const notes = join(inputs, 'notes.txt');
    await writeFile(notes, 'Presso keeps no password.\n'.repeat(200));
    execFileSync(
      '7zz',
      ['a', '-bd', '-tzip', `-p${secret.zip}`, '-mem=AES256', join(inputs, 'enc.zip'), notes],
      {
        stdio: 'pipe',
      },
    );
    execFileSync('qpdf', [
      '--encrypt',
      secret.pdf,
      secret.pdf,
      '256',
      '--',
      corpus.pdf,
      join(inputs, 'enc.pdf'),
    ]);

    const env = { PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32', PRESSO_LOG_LEVEL: 'debug' };
    const first = await spawnPresso(dataDir, { ...env, PRESSO_WORKERS: '0', PRESSO_MEDIA_WORKERS: '0' });
    children.push(first);
    const queuing = testClient(first.url, key, first.cert);
    clients.push(queuing);
    const accepted = async (response: Awaited<ReturnType<TestClient['request']>>) => {
      const text = await response.text();
      assert.equal(response.status, 202, text);
      assertHoldsNone(text, all, 'the acknowledgement');
      return (JSON.parse(text) as { id: string }).id;
    };
    const fetchId = await accepted(
      await queuing.fetchJson({
        url: `${source.origin}/cat.png`,
        headers: { Authorization: secret.token, Cookie: secret.cookie },
        webhook: { url: `${hook.origin}/hook` },
      }),
    );
    const zipId = await accepted(
      await queuing.upload(join(inputs, 'enc.zip'), { async: true, archive: { password: secret.zip } }),
    );
    const pdfId = await accepted(
      await queuing.upload(join(inputs, 'enc.pdf'), {
        async: true,
        pdf: { password: secret.pdf, compression: 'lossless' },
      }),
    );
    await queuing.close();
    await first.kill('SIGKILL');
    assertHoldsNone(await databaseBytes(dataDir), all, 'the database of queued jobs');

    const second = await spawnPresso(dataDir, env);
    children.push(second);
    const client = testClient(second.url, key, second.cert, { keepAlive: false });
    clients.push(client);
    const results: Record<string, CompletedResult> = {};
    for (const id of [fetchId, zipId, pdfId]) {
      const job = await client.waitForJob(id);
      assert.equal(job.status, 'completed', JSON.stringify(job));
      results[id] = job as unknown as CompletedResult;
      assertHoldsNone(await (await client.request(`/1.0/jobs/${id}`)).text(), all, 'GET /1.0/jobs/{id}');
    }
    // Each secret did its work: the source was reached with the credentials, and the archive is
    // encrypted again with its password.
    assert.ok(source.requests.some((req) => req.headers.authorization === secret.token));
    const zip = join(inputs, 'out.zip');
    await writeFile(zip, await download(client, results[zipId]!));
    assert.throws(() => execFileSync('7zz', ['t', '-pwrong', zip], { stdio: 'pipe' }));
    execFileSync('7zz', ['t', `-p${secret.zip}`, zip], { stdio: 'pipe' });
    assert.equal(results[pdfId]!.output.format, 'pdf');

    const [delivery] = await hook.waitFor(1);
    assertHoldsNone(delivery!.body, all, 'the webhook');
    assertHoldsNone(await databaseBytes(dataDir), all, 'the database of finished jobs');
    await second.kill('SIGTERM');
    assertHoldsNone(await databaseBytes(dataDir), all, 'the database after a clean stop');
    assertHoldsNone(first.output() + second.output(), all, 'the logs');
    assert.match(second.output(), /job completed/, 'the logs were captured');
  });
});
