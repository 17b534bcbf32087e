/**
 * What a tool start costs the server (`npm run bench:spawn`): src/processors/shared/spawn-process.ts by
 * posix_spawn (the addon) against the peer, Node's own fork-based `child_process.spawn`, from this process
 * at three resident sizes (memory held as a server holds decoded images). Each start runs /bin/true with the
 * runner's stdio (a pipe for stderr) and waits for its 'close'; the figures are this process's CPU per start
 * (the parent's side, where a fork copies page tables with the event loop blocked) and the wall time of
 * `STARTS` sequential starts, alternated by method in rounds so machine load falls on both alike.
 * Prints a Markdown table, writes it into docs/benchmarks.md between the bench:spawn markers and writes
 * bench/results/spawn.json. `--quick`: one round instead of three.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnMethod, spawnProcessWith } from '../../src/processors/shared/spawn-process.ts';
import { writeReadmeSection } from '../shared/readme-section.ts';

const root = resolve(import.meta.dirname, '..', '..');
const rounds = process.argv.includes('--quick') ? 1 : 3;
const STARTS = 40;
const SIZES_MB = [50, 300, 700];
type Method = 'posix_spawn' | 'fork';

if (spawnMethod !== 'posix_spawn') throw new Error('the spawn addon is not built: run scripts/setup.sh');

function start(method: Method): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawnProcessWith(method, '/bin/true', [], {
      cwd: '/',
      env: { PATH: '/usr/bin:/bin' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.resume();
    child.on('error', fail);
    child.on('close', () => done());
  });
}

async function measure(method: Method): Promise<{ cpuMs: number; wallMs: number }> {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  for (let i = 0; i < STARTS; i++) await start(method);
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000 / STARTS, wallMs: (performance.now() - wall) / STARTS };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const held: Buffer[] = [];
const rows = [];
for (const mb of SIZES_MB) {
  // Touched memory, so it is resident and in the page tables a fork copies.
  while (process.memoryUsage().rss < mb * 1024 ** 2) held.push(Buffer.alloc(16 * 1024 ** 2, 1));
  const runs: Record<Method, { cpuMs: number; wallMs: number }[]> = { posix_spawn: [], fork: [] };
  for (let round = 0; round < rounds; round++)
    for (const method of ['fork', 'posix_spawn'] as const) runs[method].push(await measure(method));
  const of = (method: Method, key: 'cpuMs' | 'wallMs') => median(runs[method].map((run) => run[key]));
  rows.push({
    rssMb: Math.round(process.memoryUsage().rss / 1024 ** 2),
    fork: { cpuMs: of('fork', 'cpuMs'), wallMs: of('fork', 'wallMs') },
    posixSpawn: { cpuMs: of('posix_spawn', 'cpuMs'), wallMs: of('posix_spawn', 'wallMs') },
  });
}

const f = (n: number) => n.toFixed(2);
const table = [
  `Median of ${rounds} round(s) of ${STARTS} sequential starts of /bin/true per method, alternated; CPU is the`,
  "server process's own per start (where a fork copies page tables, with the event loop blocked).",
  '',
  '| Server RSS (MB) | CPU ms, Node spawn (fork) | CPU ms, posix_spawn | CPU ratio | Wall ms, fork | Wall ms, posix_spawn |',
  '|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.rssMb} | ${f(r.fork.cpuMs)} | ${f(r.posixSpawn.cpuMs)} | ${f(r.posixSpawn.cpuMs / r.fork.cpuMs)}× | ` +
      `${f(r.fork.wallMs)} | ${f(r.posixSpawn.wallMs)} |`,
  ),
].join('\n');
console.log(table);
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(
  join(root, 'bench/results/spawn.json'),
  `${JSON.stringify({ rounds, starts: STARTS, rows }, null, 1)}\n`,
);
if (!writeReadmeSection(join(root, 'docs/benchmarks.md'), 'spawn', table))
  console.log('(docs/benchmarks.md has no bench:spawn markers: table not written)');
