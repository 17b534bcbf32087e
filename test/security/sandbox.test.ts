/**
 * The tool sandbox (src/processors/shared/sandbox.ts) through the shared tool runner and the API: a tool
 * that reads outside its job folder (the data directory, /etc, another job) fails cleanly as a 422 and
 * reads nothing; the input is readable but read-only; no network, no server variable, no host process is
 * visible. Each check also runs with the sandbox off, where the same read succeeds, so none can pass
 * for a reason other than the sandbox. And `PRESSO_SANDBOX` at start-up: bwrap proved or refused by name,
 * off logged loudly.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { ConfigError, PressoError } from '../../src/errors/catalog.ts';
import { Deadline } from '../../src/processors/shared/deadline.ts';
import { runTool, type ToolRun } from '../../src/processors/shared/run-tool.ts';
import { type SandboxMode, sandboxMode, setSandboxMode } from '../../src/processors/shared/sandbox.ts';
import { startSandbox } from '../../src/runtime/sandbox.ts';
import { assertErrorBody } from '../api/helpers.ts';
import { startTestPresso } from '../support/presso.ts';
import { plantCanaries, removeCanaries } from './canaries.ts';
import type { CanaryTargets } from './hostile-inputs.ts';
import { hostileInputs } from './hostile-inputs.ts';

/** A data directory with a job folder, a neighbour job and secrets, laid out as the server lays them. */
let dataDir: string;
let jobDir: string;
let input: string;
let secrets: { data: string; etc: string; otherJob: string; token: string };

let root: string;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'presso-sandbox-'));
  dataDir = join(root, 'data');
  jobDir = join(dataDir, 'work', 'job-1');
  mkdirSync(join(jobDir, 'process'), { recursive: true });
  mkdirSync(join(dataDir, 'work', 'job-2'), { recursive: true });
  mkdirSync(join(dataDir, 'files'), { recursive: true });
  const token = `PRESSO-SECRET-${randomBytes(8).toString('hex')}`;
  secrets = {
    data: join(dataDir, 'connector.key'),
    etc: join('/etc', `presso-sandbox-test-${randomBytes(6).toString('hex')}`),
    otherJob: join(dataDir, 'work', 'job-2', 'input'),
    token,
  };
  for (const path of [secrets.data, secrets.etc, secrets.otherJob]) writeFileSync(path, `${token}\n`);
  input = join(dataDir, 'files', 'input');
  writeFileSync(input, 'the job input\n');
});
after(() => {
  rmSync(secrets.etc, { force: true });
  rmSync(root, { recursive: true, force: true });
});

function jobRun(): ToolRun {
  return {
    deadline: new Deadline(60_000),
    signal: new AbortController().signal,
    workDir: join(jobDir, 'process'),
    jobDir,
    inputs: [input],
  };
}

async function inMode<T>(mode: SandboxMode, body: () => Promise<T>): Promise<T> {
  const before = sandboxMode();
  setSandboxMode(mode);
  try {
    return await body();
  } finally {
    setSandboxMode(before);
  }
}

const sh = (script: string) => runTool('sh', ['-c', script], jobRun(), { captureStdout: true });

describe('the sandbox, through the tool runner', () => {
  test('a tool cannot read the data directory, /etc or another job: a clean 422 without the content', async () => {
    for (const path of [secrets.data, secrets.etc, secrets.otherJob]) {
      await assert.rejects(sh(`cat ${path}`), (error: unknown) => {
        assert.ok(error instanceof PressoError);
        assert.equal(error.statusCode, 422);
        assert.match(error.message, /^sh could not process the file: .*No such file or directory\.$/);
        assert.ok(!error.message.includes(secrets.token));
        return true;
      });
      // Without the sandbox the same tool reads it: the sandbox is what stops it.
      const { stdout } = await inMode('off', () => sh(`cat ${path}`));
      assert.equal(stdout, `${secrets.token}\n`);
    }
  });

  test('it sees the job folder (read-write) and its input (read-only), and of /etc only what tools need', async () => {
    const { stdout } = await sh(
      `cat ${input}; echo written > ${jobDir}/out.txt; ls ${dataDir}/work; ls /etc; test -r /etc/fonts/fonts.conf && echo fonts`,
    );
    assert.equal(readFileSync(join(jobDir, 'out.txt'), 'utf8'), 'written\n');
    const lines = stdout.trim().split('\n');
    assert.equal(lines[0], 'the job input');
    assert.equal(lines[1], 'job-1', 'no other job is visible');
    assert.ok(!lines.some((line) => line.startsWith('presso-sandbox-test-')), '/etc is not bound whole');
    assert.equal(lines.at(-1), 'fonts');
    await assert.rejects(sh(`echo changed >> ${input}`), /Read-only file system/);
    assert.equal(readFileSync(input, 'utf8'), 'the job input\n');
  });

  test('a tool has no network, no variable of the server and sees no process of the host', async () => {
    const server = createServer((socket) => socket.end('hello\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    process.env.PRESSO_TEST_SECRET = secrets.token;
    try {
      const script = `env; ls /proc | grep -c '^[0-9]'; exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`;
      const inside = runTool('bash', ['-c', script], jobRun(), { captureStdout: true });
      await assert.rejects(inside, /could not process the file/);
      const { stdout } = await runTool('bash', ['-c', script.split(';').slice(0, 2).join(';')], jobRun(), {
        captureStdout: true,
      });
      assert.ok(!stdout.includes(secrets.token), 'no server variable');
      assert.ok(!stdout.includes('PRESSO_'), 'no PRESSO_ variable');
      const processes = Number(stdout.trim().split('\n').at(-1));
      assert.ok(processes <= 4, `${processes} processes visible: the sandbox's own only`);
      // Without the sandbox the same script reaches the listener.
      const open = await inMode('off', () =>
        runTool('bash', ['-c', script], jobRun(), { captureStdout: true }),
      );
      assert.match(open.stdout, /hello\n$/);
    } finally {
      delete process.env.PRESSO_TEST_SECRET;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('PRESSO_SANDBOX at start-up', () => {
  const logged = () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    return { lines, logger };
  };

  test('bwrap is proved to run here, or the start fails naming the variable', async () => {
    const { logger } = logged();
    await startSandbox({ mode: 'bwrap' }, logger);
    assert.equal(sandboxMode(), 'bwrap');
    await assert.rejects(
      startSandbox(
        { mode: 'bwrap' },
        logger,
        async () => 'Creating new namespace failed: Operation not permitted',
      ),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /^PRESSO_SANDBOX=bwrap, but bubblewrap cannot run here \(Creating new/);
        assert.match(error.message, /PRESSO_SANDBOX=off/);
        return true;
      },
    );
  });

  test('off is in force only with an error-level warning', async () => {
    const { lines, logger } = logged();
    await startSandbox({ mode: 'off' }, logger);
    try {
      assert.equal(sandboxMode(), 'off');
      const warning = lines.find((line) => line.msg.includes('PRESSO_SANDBOX=off'));
      assert.ok(warning, 'the start-up says the sandbox is off');
      assert.equal(warning.level, 50, 'at error level');
      assert.match(warning.msg, /WITHOUT a sandbox/);
    } finally {
      setSandboxMode('bwrap');
    }
  });
});

describe('the sandbox, through the API', () => {
  let targets: CanaryTargets | undefined;
  after(() => removeCanaries(targets));

  test('a hostile archive whose packer would read the data directory fails as a 422, /healthz says bwrap', async () => {
    const presso = await startTestPresso();
    try {
      targets = await plantCanaries(presso.dataDir);
      const health = (await (await presso.request('/healthz', { auth: false })).json()) as {
        sandbox: string;
      };
      assert.equal(health.sandbox, 'bwrap');
      const attack = hostileInputs(join(root, 'api'), targets).find((i) =>
        i.name.startsWith('zip: absolute link to the data directory, then a "-C" member'),
      );
      assert.ok(attack);
      const response = await presso.upload(attack.bytes, attack.params, undefined, attack.fileName);
      const body = await assertErrorBody(response, 422);
      assert.ok(!JSON.stringify(body).includes(targets.dataDir.token));
    } finally {
      await presso.stop();
    }
  });
});
