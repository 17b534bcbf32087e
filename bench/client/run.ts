/**
 * Client benchmark (issue 23): presso-client over a folder of 200 real images at concurrency 4, against the
 * same work sent by a plain curl loop (upload, then download the output), in the same run against the same
 * started server (one configuration for both). Reports files per second of each, their ratio (target
 * >= 1.5), and where the CPU went during each run, from cgroups (bench/shared/cpu-meter.ts): the client's
 * processes alone, the server's (its tools included), and the whole machine's busy time from /proc/stat
 * (others' work on a shared host shows there). Server CPU over wall time says whether the server was
 * saturated: on 2 cores a server at ~2 cores busy cannot go faster whatever the client does.
 * The files go in 4 rounds, the clients in a rotated order each round, so background load on a shared
 * machine falls on all of them alike. The CLI also runs at concurrency 1: equal to the curl loop, the client
 * adds no cost of its own; its gain at concurrency 4 is what the server had to spare.
 * Prints the table, writes it into packages/client/README.md and bench/results/client-<time>.json.
 * Run by `npm run bench:client` (scripts/bench.sh client); PRESSO_BENCH_CLIENT_FILES=N for a shorter run.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { corpusDir } from '../../test/support/corpus.ts';
import { createAccountCli, spawnPresso } from '../../test/support/presso.ts';
import { CpuMeter, type CpuUnit } from '../shared/cpu-meter.ts';
import { writeReadmeSection } from '../shared/readme-section.ts';

const root = resolve(import.meta.dirname, '..', '..');
const FILES = Number(process.env.PRESSO_BENCH_CLIENT_FILES ?? 200);
const CONCURRENCY = 4;
const ROUNDS = 4;
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

/** Busy and total jiffies of the whole machine (every core), from the first line of /proc/stat. */
async function machineJiffies(): Promise<{ busy: number; total: number }> {
  const fields = (await readFile('/proc/stat', 'utf8'))
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = fields.reduce((sum, n) => sum + n, 0);
  // idle and iowait are the 4th and 5th fields.
  return { busy: total - fields[3]! - fields[4]!, total };
}

/**
 * Runs `script` in bash inside a cgroup unit of its own (the client's CPU: bash, curl or node, all they
 * start) and returns its wall seconds, its CPU seconds, the server's CPU seconds meanwhile and the cores
 * the whole machine was busy on average.
 */
async function timed(
  meter: CpuMeter,
  serverUnit: CpuUnit,
  script: string,
  args: string[],
  env: Record<string, string>,
) {
  const client = meter.unit();
  const [command, argv] = client.command('bash', ['-c', script, 'bench', ...args]);
  const serverBefore = serverUnit.seconds();
  const machineBefore = await machineJiffies();
  const started = process.hrtime.bigint();
  const { stdout } = await execFileAsync(command, argv, {
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const machineAfter = await machineJiffies();
  const server = serverUnit.seconds() - serverBefore;
  const cpu = (await client.finish()).seconds;
  const cores = availableParallelism();
  const machineBusyCores =
    ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * cores;
  return { wall, cpu, server, machineBusyCores, stdout };
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
const meter = CpuMeter.open('client');
const server = await spawnPresso(dataDir, { PRESSO_LOG_LEVEL: 'silent' });
const serverUnit = meter.unit();
serverUnit.adopt(server.child.pid!);
try {
  const { key } = await createAccountCli(dataDir, 'bench');
  const images = await pickImages();
  const folder = join(scratch, 'images');
  await mkdir(folder);
  const inputs: string[] = [];
  for (const [i, image] of images.entries()) {
    const round = join(folder, `round-${i % ROUNDS}`);
    await mkdir(round, { recursive: true });
    const name = `${String(i).padStart(3, '0')}${extname(image).toLowerCase()}`;
    await copyFile(image, join(round, name));
    inputs.push(join(round, name));
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
  await timed(meter, serverUnit, CURL_LOOP, [warm, ...inputs.slice(0, 3)], env);

  const bin = join(root, 'packages/client/bin/presso-client');
  type Measured = Awaited<ReturnType<typeof timed>>;
  const runCurl = async (round: number, files: string[]) => {
    const out = join(scratch, `curl-out-${round}`);
    await mkdir(out);
    const measured = await timed(meter, serverUnit, CURL_LOOP, [out, ...files], env);
    const written = (await readdir(out)).length;
    if (written !== files.length)
      throw new Error(`the curl loop wrote ${written} of ${files.length} outputs`);
    return measured;
  };
  // The CLI at concurrency 1 too: the same sequence of requests as the curl loop, so the difference between
  // the two is the client's own pipeline, and that between CLI 1 and CLI 4 is what the server had to spare.
  const runCli = async (concurrency: number, round: number, files: string[]) => {
    const out = join(scratch, `cli-out-${concurrency}-${round}`);
    const measured = await timed(
      meter,
      serverUnit,
      `"${process.execPath}" "${bin}" compress "$1" --out "$2" --concurrency ${concurrency} --json > "$2.jsonl"`,
      [join(folder, `round-${round}`), out],
      env,
    );
    const lines = (await readFile(`${out}.jsonl`, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const summary = lines.find((l) => l.event === 'summary');
    if (summary.done !== files.length)
      throw new Error(`the CLI did ${summary.done} of ${files.length} files`);
    return measured;
  };
  // Rounds of a quarter of the files each, the three clients in a rotated order every round: on a shared
  // machine whose other load comes and goes, no client gets all the quiet (or all the busy) minutes.
  const clients = [
    (round: number, files: string[]) => runCli(CONCURRENCY, round, files),
    (round: number, files: string[]) => runCurl(round, files),
    (round: number, files: string[]) => runCli(1, round, files),
  ];
  const totals = clients.map(() => ({ wall: 0, cpu: 0, server: 0, busyCoreSeconds: 0 }));
  for (let round = 0; round < ROUNDS; round++) {
    const files = inputs.filter((_, i) => i % ROUNDS === round);
    for (let k = 0; k < clients.length; k++) {
      const which = (round + k) % clients.length;
      const measured: Measured = await clients[which]!(round, files);
      const total = totals[which]!;
      total.wall += measured.wall;
      total.cpu += measured.cpu;
      total.server += measured.server;
      total.busyCoreSeconds += measured.machineBusyCores * measured.wall;
    }
  }
  const [cli, curl, cliSerial] = totals.map((t) => ({ ...t, machineBusyCores: t.busyCoreSeconds / t.wall }));

  const rows = [
    { client: `presso-client compress (concurrency ${CONCURRENCY})`, ...cli! },
    { client: 'curl loop (upload, then download)', ...curl! },
    { client: 'presso-client compress (concurrency 1)', ...cliSerial! },
  ].map((r) => ({
    client: r.client,
    files: inputs.length,
    seconds: Number(r.wall.toFixed(1)),
    filesPerSecond: Number((inputs.length / r.wall).toFixed(2)),
    clientCpuMsPerFile: Number(((r.cpu * 1000) / inputs.length).toFixed(1)),
    serverCpuMsPerFile: Number(((r.server * 1000) / inputs.length).toFixed(1)),
    // Cores the server kept busy on average: at the machine's core count, the server was the bottleneck.
    serverCores: Number((r.server / r.wall).toFixed(2)),
    machineBusyCores: Number(r.machineBusyCores.toFixed(2)),
  }));
  const ratio = Number((rows[0]!.filesPerSecond / rows[1]!.filesPerSecond).toFixed(2));
  const table = [
    `${inputs.length} real images (${(bytes / 1e6).toFixed(1)} MB), default compression, one server for all runs ` +
      `(default settings: PRESSO_WORKERS = ${availableParallelism()} CPUs), on ${availableParallelism()} cores; ` +
      `all clients in the same run, in ${ROUNDS} rounds of rotated order. Files/s ratio: **${ratio}** (target >= ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}).`,
    '',
    '| client | files | seconds | files/s | client CPU ms/file | server CPU ms/file | server cores busy | machine cores busy |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.client} | ${r.files} | ${r.seconds} | ${r.filesPerSecond} | ${r.clientCpuMsPerFile} | ` +
        `${r.serverCpuMsPerFile} | ${r.serverCores} | ${r.machineBusyCores} |`,
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
  await meter.close();
  await rm(dataDir, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
}
