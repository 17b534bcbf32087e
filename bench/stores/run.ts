/**
 * The external-store benchmark (issue 12), one command: `npm run bench:stores`. A 200 MB output (and a 20 MB
 * one, to see whether memory grows with the file) is written to each kind's server, as the tests run them
 * (s3rver for the S3 family, Azurite, the GCS JSON-API test server), by Presso's store and by the provider
 * SDK's own upload of the same file, each in a child process of its own: wall time, CPU and peak RSS. The S3
 * presets (R2, B2, Spaces) share the S3 store's code path and are not run apart. Prints a Markdown table,
 * writes it into README.md between the bench:stores markers, and writes bench/results/stores.json.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { BlobServiceClient } from '@azure/storage-blob';
import { startAzurite, startS3rver } from '../../test/support/store-servers.ts';
import { writeReadmeSection } from '../shared/readme-section.ts';

const execFileAsync = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'presso-bench-stores-'));
const quick = process.argv.includes('--quick');
const SIZES_MB = quick ? [20] : [20, 200];

function writeRandomFile(path: string, mb: number): void {
  const fd = openSync(path, 'w');
  for (let i = 0; i < mb; i++) writeSync(fd, randomBytes(1024 * 1024));
  closeSync(fd);
}

interface Measure {
  wallMs: number;
  cpuMs: number;
  maxRssMb: number;
}

/**
 * Asynchronous: the servers run in this process, so its event loop must keep serving during the upload. The GCS
 * test server keeps each upload in memory: in this process, the garbage of one 200 MB upload slowed the next, and
 * a slow server made the next client's RSS grow (SDK and Presso alike, 600 MB for 200 MB). Each GCS upload gets a
 * fresh server in a process of its own.
 */
async function upload(
  way: 'presso' | 'sdk',
  kind: string,
  file: string,
  key: string,
  settings: unknown,
): Promise<Measure> {
  const gcs = kind === 'gcs' ? await gcsServer() : undefined;
  const withServer = gcs === undefined ? settings : { ...(settings as object), apiEndpoint: gcs.url };
  try {
    const child = [
      join(import.meta.dirname, 'upload-child.ts'),
      way,
      kind,
      file,
      key,
      JSON.stringify(withServer),
    ];
    const { stdout } = await execFileAsync(process.execPath, child, { encoding: 'utf8', maxBuffer: 1 << 20 });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as Measure;
  } finally {
    gcs?.child.kill('SIGTERM');
  }
}

async function gcsServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'gcs-server-child.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((ok, fail) => {
    child.stdout!.once('data', (chunk: Buffer) => ok(chunk.toString().trim()));
    child.once('exit', () => fail(new Error('the GCS test server exited')));
  });
  return { url, child };
}

const [s3, azurite] = await Promise.all([startS3rver(['out']), startAzurite()]);
await BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient('out').create();
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const serviceAccount = {
  client_email: 'bench@example.iam.gserviceaccount.com',
  private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
};
const KINDS: [string, string, unknown][] = [
  ['s3', 's3rver', { endpoint: s3.endpoint }],
  ['azure', 'Azurite 3.36', { connectionString: azurite.connectionString }],
  ['gcs', 'JSON-API test server', { serviceAccount }],
];

const rows: { kind: string; server: string; mb: number; presso: Measure; sdk: Measure; ratio: number }[] = [];
for (const mb of SIZES_MB) {
  const file = join(scratch, `output-${mb}.bin`);
  writeRandomFile(file, mb);
  for (const [kind, server, settings] of KINDS) {
    const sdk = await upload('sdk', kind, file, `sdk-${mb}`, settings);
    const presso = await upload('presso', kind, file, `presso-${mb}`, settings);
    rows.push({ kind, server, mb, presso, sdk, ratio: sdk.wallMs / presso.wallMs });
    console.log(
      `${kind} ${mb} MB: Presso ${presso.wallMs.toFixed(0)} ms (${presso.maxRssMb.toFixed(0)} MB RSS), SDK ${sdk.wallMs.toFixed(0)} ms (${sdk.maxRssMb.toFixed(0)} MB RSS)`,
    );
  }
  rmSync(file);
}
await Promise.all([s3.close(), azurite.close()]);

const date = new Date().toISOString().slice(0, 10);
const big = Math.max(...SIZES_MB);
const growth = (kind: string) => {
  const of = (mb: number) => rows.find((r) => r.kind === kind && r.mb === mb)?.presso.maxRssMb ?? Number.NaN;
  return of(big) - of(Math.min(...SIZES_MB));
};
const markdown = [
  `Run: \`npm run bench:stores\`, ${date}, servers on this machine. Speed ratio = SDK upload time ÷ Presso's (≥ 0.9: Presso is at most 11 % slower).`,
  '',
  '| store (server) | output | Presso wall / CPU | SDK wall / CPU | speed ratio | peak RSS Presso / SDK | RSS growth 20 → 200 MB |',
  '|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.kind} (${r.server}) | ${r.mb} MB | ${(r.presso.wallMs / 1000).toFixed(2)} s / ${(r.presso.cpuMs / 1000).toFixed(2)} s | ${(r.sdk.wallMs / 1000).toFixed(2)} s / ${(r.sdk.cpuMs / 1000).toFixed(2)} s | ${r.ratio.toFixed(2)} ${r.ratio >= 0.9 ? '(met)' : '(missed)'} | ${r.presso.maxRssMb.toFixed(0)} / ${r.sdk.maxRssMb.toFixed(0)} MB | ${r.mb === big && SIZES_MB.length > 1 ? `${growth(r.kind).toFixed(0)} MB` : ''} |`,
  ),
].join('\n');
console.log(`\n${markdown}`);
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/stores.json'), `${JSON.stringify({ date, quick, rows }, null, 2)}\n`);
if (!quick && writeReadmeSection(join(root, 'README.md'), 'stores', markdown)) console.log('README updated');
rmSync(scratch, { recursive: true, force: true });
