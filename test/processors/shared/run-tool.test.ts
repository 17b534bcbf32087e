/**
 * The shared tool runner: a tool and everything it forks are gone after an abort, the deadline or its
 * own exit; resource limits apply; the public message of a failure names the tool and never a path.
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PressoError } from '../../../src/errors/catalog.ts';
import { Deadline } from '../../../src/processors/shared/deadline.ts';
import { publicDetail } from '../../../src/processors/shared/public-detail.ts';
import {
  limitsEnforced,
  runTool,
  STREAM_CAP,
  type ToolRun,
} from '../../../src/processors/shared/run-tool.ts';
import { settled, until } from '../../support/until.ts';

let workDir: string;
before(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'presso-run-tool-'));
});
after(async () => {
  await rm(workDir, { recursive: true, force: true });
});

function runIn(overrides: Partial<ToolRun> = {}): ToolRun {
  return { deadline: new Deadline(60_000), signal: new AbortController().signal, workDir, ...overrides };
}

/** Alive and not a zombie (a killed process whose parent has not reaped it yet holds no resources). */
async function isAlive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Waits until the pids are gone (only a hang guard limits it); returns those left. */
async function survivors(pids: number[]): Promise<number[]> {
  const alive = async () => {
    const left = [];
    for (const pid of pids) if (await isAlive(pid)) left.push(pid);
    return left;
  };
  return settled(alive, (left) => left.length === 0);
}

/**
 * The host's pids of every live process whose command line holds `marker`: the sandbox's own PID
 * namespace numbers processes from 1 inside, so the tool cannot tell its host pid; its command line
 * (bubblewrap's arguments, the shell's script, the `sleep` it forks) carries the marker.
 */
async function processesWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(marker) && (await isAlive(Number(entry)))) pids.push(Number(entry));
  }
  return pids;
}

/** A `sleep` whose duration is unique to this test run, so its processes can be found from the host. */
function uniqueSleep(): { marker: string; sleep: string } {
  const marker = `300.${randomInt(100_000, 999_999)}`;
  return { marker, sleep: `sleep ${marker}` };
}

/** A shell that forks a grandchild, writes `file` once both run, then waits. */
const FORKING = (file: string, sleep: string) => `${sleep} & echo started > ${file}; wait`;

/** The host's pids of the tool's processes once `file` says they run (the shell and its `sleep`). */
async function startedProcesses(file: string, marker: string): Promise<number[]> {
  await until(() => readFile(join(workDir, file), 'utf8').catch(() => ''), `the tool writing ${file}`, 25);
  const pids = await processesWith(marker);
  assert.ok(pids.length >= 2, `the shell and its sleep run (found ${pids.length})`);
  return pids;
}

describe('runTool', () => {
  it('kills the tool and the processes it forked on abort', async () => {
    const controller = new AbortController();
    const { marker, sleep: forked } = uniqueSleep();
    const run = runTool('sh', ['-c', FORKING('abort.started', forked)], runIn({ signal: controller.signal }));
    const pids = await startedProcesses('abort.started', marker);
    controller.abort(new Error('job cancelled'));
    await assert.rejects(run, /job cancelled/);
    assert.deepEqual(await survivors(pids), []);
    assert.deepEqual(await processesWith(marker), []);
  });

  it('kills the tool and the processes it forked at the deadline, with the budget error', async () => {
    const { marker, sleep: forked } = uniqueSleep();
    const run = runTool(
      'sh',
      ['-c', FORKING('deadline.started', forked)],
      runIn({ deadline: new Deadline(1500, 'the video') }),
    );
    const pids = await startedProcesses('deadline.started', marker);
    await assert.rejects(run, (error: unknown) => {
      assert.ok(error instanceof PressoError);
      assert.equal(error.statusCode, 422);
      assert.match(error.message, /^Processing the video took longer than the time budget of 2 s\.$/);
      return true;
    });
    assert.deepEqual(await survivors(pids), []);
    assert.deepEqual(await processesWith(marker), []);
  });

  it('kills what a tool left running when it exits', async () => {
    const { marker, sleep: forked } = uniqueSleep();
    const script = `${forked} & echo started > left.started; echo done`;
    const { stdout } = await runTool('sh', ['-c', script], runIn(), { captureStdout: true });
    assert.equal(stdout, 'done\n');
    assert.equal(await readFile(join(workDir, 'left.started'), 'utf8'), 'started\n');
    assert.deepEqual(await survivors(await processesWith(marker)), []);
  });

  it('runs in the work directory and refuses a tool that was aborted before it started', async () => {
    const { stdout } = await runTool('pwd', [], runIn(), { captureStdout: true });
    assert.equal(stdout.trim(), workDir);
    const controller = new AbortController();
    controller.abort(new Error('already cancelled'));
    await assert.rejects(runTool('true', [], runIn({ signal: controller.signal })), /already cancelled/);
  });

  it('hands a secret to the tool on stdin, never on its command line', async () => {
    const { stdout } = await runTool(
      'sh',
      ['-c', 'read -r line; echo "got $line"; cat /proc/$$/cmdline'],
      runIn(),
      {
        captureStdout: true,
        stdin: 'the-password\n',
      },
    );
    assert.match(stdout, /^got the-password\n/);
    assert.ok(!stdout.slice(stdout.indexOf('\n')).includes('the-password'), 'not in the command line');
    // A tool that never reads its stdin is not an error.
    await runTool('true', [], runIn(), { stdin: 'x'.repeat(1024 * 1024) });
  });

  it('answers a failure with a 422 naming the tool and no path; the stderr tail goes to the cause', async () => {
    const script = `echo "noise" >&2; echo "cannot open ${workDir}/input.heic or /etc/secret/x: bad header" >&2; exit 3`;
    await assert.rejects(
      runTool('sh', ['-c', script], runIn(), { label: 'heif-convert' }),
      (error: unknown) => {
        assert.ok(error instanceof PressoError);
        assert.equal(error.statusCode, 422);
        assert.equal(
          error.message,
          'heif-convert could not process the file: cannot open <file> or <file>: bad header.',
        );
        assert.ok(!error.message.includes('/'));
        assert.match(String((error.cause as Error).message), /\/etc\/secret\/x/, 'the log keeps the detail');
        return true;
      },
    );
  });

  it('keeps only a capped tail of stderr', async () => {
    const script = 'head -c 1000000 /dev/zero | tr "\\0" "x" >&2; echo >&2; echo "the last line" >&2; exit 1';
    await assert.rejects(runTool('sh', ['-c', script], runIn()), (error: unknown) => {
      assert.ok(error instanceof PressoError);
      assert.match(error.message, /the last line\.$/);
      assert.ok(error.message.length < 300);
      const cause = String((error.cause as Error).message);
      assert.ok(cause.length <= STREAM_CAP + 200, `cause of ${cause.length} characters`);
      assert.match(cause, /the last line/);
      return true;
    });
  });

  it('says which tool is not installed', async () => {
    await assert.rejects(runTool('presso-no-such-tool', [], runIn()), (error: unknown) => {
      assert.ok(error instanceof PressoError);
      assert.equal(error.code, 'TOOL_MISSING');
      assert.equal(error.statusCode, 422);
      assert.equal(error.message, 'presso-no-such-tool is not installed on this server.');
      return true;
    });
  });

  it('removes the work directory and absolute paths from tool text', () => {
    const text = `${workDir}/a.png: bad (C:\\tmp\\x) at "/srv/data/file.svg"\u0007`;
    assert.equal(publicDetail(text, workDir), '<file>: bad (<file>) at "<file>"');
  });
});

describe('runTool resource limits (util-linux prlimit)', () => {
  it('is enforced on this platform', () => {
    assert.equal(limitsEnforced, process.platform === 'linux');
  });

  it('stops a tool that allocates more memory than its limit', async () => {
    // 1.5 GiB in one go against a 1 GiB limit (Node itself needs about 0.8 GiB of data to start).
    const script = 'Buffer.alloc(1536 * 1024 * 1024, 1); console.log("allocated")';
    const limits = { memoryBytes: 1024 ** 3 };
    await assert.rejects(
      runTool(process.execPath, ['-e', script], runIn(), { label: 'node', limits }),
      /node could not process the file: RangeError: [^/]*(allocat|memory)[^/]*\.$/i,
    );
    await runTool(process.execPath, ['-e', script.replace('1536', '16')], runIn(), { limits });
  });

  it('stops a tool at its CPU-time limit', async () => {
    await assert.rejects(
      runTool('sh', ['-c', 'while :; do :; done'], runIn(), { limits: { cpuSeconds: 1 } }),
      /sh could not process the file: it exceeded its CPU-time limit\.$/,
    );
  });

  it('stops a tool that writes a file over the output-size limit', async () => {
    await assert.rejects(
      runTool('sh', ['-c', 'exec head -c 2000000 /dev/zero > big.out'], runIn(), {
        limits: { fileBytes: 1_000_000 },
      }),
      /sh could not process the file: its output exceeded the size limit\.$/,
    );
  });
});
