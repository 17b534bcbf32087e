/**
 * Client benchmark (issue 23): presso-client over a folder of 200 real images at concurrency 4, against the
 * same work sent by a plain curl loop (upload, then download the output), in the same run against the same
 * started server. Reports files per second of each, their ratio (target >= 1.5) and the client's CPU per
 * file (user + system of the client processes alone, from bash's `times`: the server is not counted).
 * Prints the table, writes it into packages/client/README.md and bench/results/client-<time>.json.
 * Run by `npm run bench:client` (scripts/bench.sh client).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { corpusDir } from '../../test/support/corpus.ts';
import { createAccountCli, spawnPresso } from '../../test/support/presso.ts';
import { writeReadmeSection } from '../shared/readme-section.ts';

const root = resolve(import.meta.dirname, '..', '..');
const FILES = 200;
const CONCURRENCY = 4;
const TARGET_RATIO = 1.5;
const IMAGE = new Set(['.png', '.jpg', '.jpeg', '.gif', '.webp']);
const execFileAsync = promisify(execFile);

/** 200 distinct real images (by content), smallest first, from the bench corpus and the tests' corpus. */
async function pickImages(): Promise<string[]> {
  const dirs = [process.env.PRESSO_BENCH_CORPUS ?? join(root, '.corpus/bench'), corpusDir];
  const candidates: { path: string; size: number }[] = [];
  for (const dir of dirs) {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (
        !entry.isFile() ||
        !IMAGE.has(extname(entry.name).toLowerCase()) ||
        entry.name.includes('truncated')
      )
        continue;
      const path = join(entry.parentPath, entry.name);
      const { size } = await stat(path);
      if (size >= 2_000 && size <= 3_000_000) candidates.push({ path, size });
    }
  }
  candidates.sort((a, b) => a.path.localeCompare(b.path));
  const seen = new Set<string>();
  const picked: string[] = [];
  // Spread over the sizes: every k-th candidate, so the sample is neither only icons nor only photos.
  const step = Math.max(1, Math.floor(candidates.length / (FILES * 1.5)));
  for (let i = 0; picked.length < FILES && i < candidates.length * step; i++) {
    const candidate = candidates[(i * step + Math.floor(i / candidates.length)) % candidates.length]!;
    const hash = createHash('sha1')
      .update(await readFile(candidate.path))
      .digest('hex');
    if (seen.has(hash)) continue;
    seen.add(hash);
    picked.push(candidate.path);
  }
  if (picked.length < FILES)
    throw new Error(`only ${picked.length} distinct images found; run scripts/bench.sh client`);
  return picked;
}

/** Runs `script` in bash and returns wall seconds and the CPU seconds of its child processes (`times`). */
async function timed(script: string, args: string[], env: Record<string, string>) {
  const started = process.hrtime.bigint();
  const { stdout } = await execFileAsync('bash', ['-c', `${script}\ntimes`, 'bench', ...args], {
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  // `times` prints the shell's user/system line, then its children's: "0m1.234s 0m0.567s".
  const children = stdout.trim().split('\n').at(-1)!;
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return { wall, cpu: seconds[0]! + seconds[1]!, stdout };
}

const CURL_LOOP = `
set -euo pipefail
out="$1"; shift
for f in "$@"; do
  answer=$(curl -sS --cacert "$CA" -u "$KEY:" -F "file=@$f" "$URL/1.0/upload")
  url=$(printf '%s' "$answer" | sed -n 's/.*"url":"\\([^"]*\\)".*/\\1/p')
  [ -n "$url" ] || { echo "failed: $f $answer" >&2; exit 1; }
  curl -sS --cacert "$CA" -o "$out/$(basename "$url")" "$url"
done
`;

const dataDir = await mkdtemp(join(tmpdir(), 'presso-bench-client-'));
const scratch = await mkdtemp(join(tmpdir(), 'presso-bench-client-files-'));
const server = await spawnPresso(dataDir, { PRESSO_LOG_LEVEL: 'silent' });
try {
  const { key } = await createAccountCli(dataDir, 'bench');
  const images = await pickImages();
  const folder = join(scratch, 'images');
  await mkdir(folder);
  const inputs: string[] = [];
  for (const [i, image] of images.entries()) {
    const name = `${String(i).padStart(3, '0')}${extname(image).toLowerCase()}`;
    await copyFile(image, join(folder, name));
    inputs.push(join(folder, name));
  }
  const bytes = (await Promise.all(inputs.map((p) => stat(p)))).reduce((sum, s) => sum + s.size, 0);
  const ca = join(scratch, 'ca.pem');
  await writeFile(ca, server.cert);
  const env = {
    URL: server.url,
    KEY: key,
    CA: ca,
    PRESSO_URL: server.url,
    PRESSO_API_KEY: key,
    PRESSO_CA_CERT: ca,
  };

  // A warm-up of a few files through each path, so neither pays the server's first-use costs.
  const warm = join(scratch, 'warm');
  await mkdir(warm);
  await timed(CURL_LOOP, [warm, ...inputs.slice(0, 3)], env);

  const curlOut = join(scratch, 'curl-out');
  await mkdir(curlOut);
  const curl = await timed(CURL_LOOP, [curlOut, ...inputs], env);
  const cliOut = join(scratch, 'cli-out');
  const bin = join(root, 'packages/client/bin/presso-client');
  const cli = await timed(
    `"${process.execPath}" "${bin}" compress "$1" --out "$2" --concurrency ${CONCURRENCY} --json > "$2.jsonl"`,
    [folder, cliOut],
    env,
  );
  const lines = (await readFile(`${cliOut}.jsonl`, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const summary = lines.find((l) => l.event === 'summary');
  if (summary.done !== inputs.length)
    throw new Error(`the CLI did ${summary.done} of ${inputs.length} files`);
  const curlOutputs = (await readdir(curlOut)).length;
  if (curlOutputs !== inputs.length)
    throw new Error(`the curl loop wrote ${curlOutputs} of ${inputs.length} outputs`);

  const rows = [
    { client: `presso-client compress (concurrency ${CONCURRENCY})`, ...cli },
    { client: 'curl loop (upload, then download)', ...curl },
  ].map((r) => ({
    client: r.client,
    files: inputs.length,
    seconds: Number(r.wall.toFixed(1)),
    filesPerSecond: Number((inputs.length / r.wall).toFixed(2)),
    clientCpuMsPerFile: Number(((r.cpu * 1000) / inputs.length).toFixed(1)),
  }));
  const ratio = Number((rows[0]!.filesPerSecond / rows[1]!.filesPerSecond).toFixed(2));
  const table = [
    `${inputs.length} real images (${(bytes / 1e6).toFixed(1)} MB), default compression, one server with default workers, ` +
      `both clients in the same run. Files/s ratio: **${ratio}** (target >= ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}).`,
    '',
    '| client | files | seconds | files/s | client CPU ms/file |',
    '|---|---:|---:|---:|---:|',
    ...rows.map(
      (r) => `| ${r.client} | ${r.files} | ${r.seconds} | ${r.filesPerSecond} | ${r.clientCpuMsPerFile} |`,
    ),
  ].join('\n');
  console.log(table);
  writeReadmeSection(join(root, 'packages/client/README.md'), 'client', table);
  await mkdir(join(root, 'bench/results'), { recursive: true });
  const result = {
    date: new Date().toISOString(),
    bytes,
    concurrency: CONCURRENCY,
    ratio,
    target: TARGET_RATIO,
    rows,
  };
  await writeFile(
    join(root, `bench/results/client-${Date.now()}.json`),
    `${JSON.stringify(result, null, 2)}\n`,
  );
  console.log(JSON.stringify(result));
  if (ratio < TARGET_RATIO) process.exitCode = 1;
} finally {
  await server.kill('SIGTERM');
  await rm(dataDir, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
}
