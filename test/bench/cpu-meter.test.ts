/**
 * The benchmarks' CPU meter (bench/shared/cpu-meter.ts) counts the tools Presso runs in its sandbox, which
 * the children's rusage the benches used to read (`cutime` + `cstime` of /proc/self/stat) does not:
 * bubblewrap's outer process never waits for the sandboxed tool, so the tool's time is added to nobody's.
 * Bounds are in work, never in time: a fixed shell loop whose CPU is first measured run directly (where
 * rusage is right), then run in the sandbox; the meter must see at least half of it, rusage next to none.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CpuMeter } from '../../bench/shared/cpu-meter.ts';
import { Deadline } from '../../src/processors/shared/deadline.ts';
import { runTool } from '../../src/processors/shared/run-tool.ts';
import { sandboxMode } from '../../src/processors/shared/sandbox.ts';

/** Half a million additions in dash: about 0.4 s of CPU here, well over 0.1 s on any machine. */
const BUSY = ['-c', 'i=0; while [ $i -lt 500000 ]; do i=$((i+1)); done'];

const OPEN_METER = `import(${JSON.stringify(join(import.meta.dirname, '../../bench/shared/cpu-meter.ts'))}).then((m) => m.CpuMeter.open('denied'))`;

/** CPU seconds of the children this process waited for (what the benches read before the meter). */
function waitedChildrenSeconds(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100; // cutime + cstime, clock ticks
}

/** The loop run directly: its rusage is right, and is the reference for the rest. */
function directSeconds(): number {
  const before = waitedChildrenSeconds();
  const run = spawnSync('sh', BUSY);
  assert.equal(run.status, 0);
  return waitedChildrenSeconds() - before;
}

describe('CpuMeter', () => {
  let meter: CpuMeter;
  let workDir: string;
  let reference: number;

  before(async () => {
    meter = CpuMeter.open('test');
    workDir = realpathSync(await mkdtemp(join(tmpdir(), 'presso-cpu-meter-')));
    reference = directSeconds();
    assert.ok(reference >= 0.1, `the loop burns too little CPU to measure: ${reference} s`);
  });

  after(async () => {
    await meter.close();
    await rm(workDir, { recursive: true, force: true });
  });

  it('counts a tool run in the sandbox, which the children’s rusage misses', async () => {
    assert.equal(sandboxMode(), 'bwrap', 'the tool must run in the sandbox for this test to mean anything');
    const rusageBefore = waitedChildrenSeconds();
    const measured = await meter.measure(() =>
      runTool('sh', BUSY, {
        deadline: new Deadline(3_600_000),
        signal: new AbortController().signal,
        workDir,
      }),
    );
    const rusage = waitedChildrenSeconds() - rusageBefore;
    assert.ok(
      measured.seconds >= reference / 2,
      `the meter saw ${measured.seconds} s of a tool that burns ${reference} s run directly`,
    );
    // Why the meter: the old way sees bubblewrap's few milliseconds, not the tool's work.
    assert.ok(rusage <= reference / 10, `rusage saw ${rusage} s of ${reference} s`);
  });

  it('counts a peer run through a unit of its own, and not the time it sleeps', async () => {
    const busy = meter.unit();
    assert.equal(spawnSync(...busy.command('sh', BUSY)).status, 0);
    const busySeconds = (await busy.finish()).seconds;
    assert.ok(busySeconds >= reference / 2, `peer unit: ${busySeconds} s of ${reference} s`);
    const idle = meter.unit();
    assert.equal(spawnSync(...idle.command('sleep', ['0.3'])).status, 0);
    const idleSeconds = (await idle.finish()).seconds;
    assert.ok(idleSeconds < reference / 4, `a sleeping peer: ${idleSeconds} s`);
  });

  it('says the bench needs cgroup write access where it has none', () => {
    // An unprivileged user (util-linux setpriv) cannot make cgroups in root's hierarchy.
    const run = spawnSync(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', OPEN_METER],
      { encoding: 'utf8' },
    );
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /CgroupAccessError: .*needs write access to .*run it as root/);
  });

  it('measures one thing at a time in a process', async () => {
    const outer = meter.measure(() => new Promise((resolve) => setTimeout(resolve, 10)));
    await assert.rejects(
      meter.measure(() => undefined),
      /one measure at a time/,
    );
    await outer;
  });
});
