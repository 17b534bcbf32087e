/**
 * The canary test: files with random content planted in the server's data directory, in /etc and in
 * another job's folder never appear in an output or a message, whatever hostile input of whatever kind
 * goes through the API (hostile-inputs.ts). It holds twice over: with the bubblewrap sandbox (the default),
 * and with the sandbox off, where only each processor's own checks stand (archive links, office links,
 * media references refused or removed). Before those checks, the sandbox-off run leaked the archive links
 * and the linked office pictures; a control proves the detectors see a canary that really is in an output.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, type TestContext, test } from 'node:test';
import sharp from 'sharp';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { useScratch } from '../support/scratch.ts';
import { leaked, plantCanaries, removeCanaries, revealed, showsCanaryPixels } from './canaries.ts';
import { type Canary, type CanaryTargets, type HostileInput, hostileInputs } from './hostile-inputs.ts';

const scratch = useScratch('presso-canary-');

/**
 * Everything the caller sees of one hostile request: answers, messages, output bytes and their content;
 * a drawing of the JPEG canary counts as its token.
 */
async function exposure(
  presso: TestPresso,
  input: HostileInput,
  dir: string,
  targets: CanaryTargets,
): Promise<(string | Buffer)[]> {
  const seen: (string | Buffer)[] = [];
  const response = await presso.upload(input.bytes, input.params, undefined, input.fileName);
  const text = await response.text();
  seen.push(text);
  let body = JSON.parse(text) as Record<string, unknown>;
  if (response.status === 202) {
    body = await presso.waitForJob(String(body.id));
    seen.push(JSON.stringify(body));
  }
  if (typeof body.url === 'string' && body.status !== 'failed') {
    const output = await presso.get(body.url);
    const path = join(dir, `output-${String(body.id)}`);
    writeFileSync(path, Buffer.from(await output.arrayBuffer()));
    seen.push(...revealed(path, dir));
    if (await showsCanaryPixels(path, dir)) seen.push(targets.dataDirJpeg.token);
  }
  return seen;
}

/** Sends every input; returns the canaries each one revealed. */
async function attack(
  t: TestContext,
  presso: TestPresso,
  targets: CanaryTargets,
  inputs: HostileInput[],
): Promise<Map<string, Canary[]>> {
  const found = new Map<string, Canary[]>();
  for (const input of inputs) {
    await t.test(input.name, async () => {
      const seen = await exposure(presso, input, scratch(), targets);
      found.set(input.name, leaked(targets, seen));
    });
  }
  return found;
}

interface Planted {
  presso: TestPresso;
  targets: CanaryTargets;
}

async function startPlanted(env: Record<string, string>): Promise<Planted> {
  const presso = await startTestPresso(env);
  try {
    return { presso, targets: await plantCanaries(presso.dataDir) };
  } catch (error) {
    await presso.stop();
    throw error;
  }
}

async function stopPlanted(server: Planted): Promise<void> {
  removeCanaries(server.targets);
  await server.presso.stop();
}

async function withServer(
  env: Record<string, string>,
  body: (presso: TestPresso, targets: CanaryTargets) => Promise<void>,
): Promise<void> {
  const server = await startPlanted(env);
  try {
    await body(server.presso, server.targets);
  } finally {
    await stopPlanted(server);
  }
}

describe('canary: no planted file reaches an output or a message', () => {
  // One sandboxed server (the default) for the attack and the control: a start less.
  let sandboxed: Promise<Planted> | undefined;
  const withSandboxed = async (body: (presso: TestPresso, targets: CanaryTargets) => Promise<void>) => {
    sandboxed ??= startPlanted({});
    const { presso, targets } = await sandboxed;
    await body(presso, targets);
  };
  after(async () => {
    const server = await sandboxed?.catch(() => undefined);
    if (server !== undefined) await stopPlanted(server);
  });

  test('with the sandbox (the default), no hostile input of any kind reveals a canary', async (t) => {
    await withSandboxed(async (presso, targets) => {
      const health = (await (await presso.request('/healthz', { auth: false })).json()) as {
        sandbox: string;
      };
      assert.equal(health.sandbox, 'bwrap');
      const inputs = hostileInputs(join(scratch(), 'on'), targets);
      const found = await attack(t, presso, targets, inputs);
      const leaks = [...found].filter(([, canaries]) => canaries.length > 0);
      assert.deepEqual(
        leaks.map(([name, canaries]) => `${name}: ${canaries.map((c) => c.path).join(', ')}`),
        [],
      );
      assert.equal(found.size, inputs.length, 'every input was sent');
    });
  });

  test('without the sandbox, the processors’ own checks stop every input too', async (t) => {
    await withServer({ PRESSO_SANDBOX: 'off' }, async (presso, targets) => {
      const health = (await (await presso.request('/healthz', { auth: false })).json()) as {
        sandbox: string;
      };
      assert.equal(health.sandbox, 'off');
      const inputs = hostileInputs(join(scratch(), 'off'), targets);
      const found = await attack(t, presso, targets, inputs);
      const leaks = [...found].filter(([, canaries]) => canaries.length > 0);
      assert.deepEqual(
        leaks.map(([name, canaries]) => `${name}: ${canaries.map((c) => c.path).join(', ')}`),
        [],
      );
      assert.equal(found.size, inputs.length, 'every input was sent');
    });
  });

  test('the detectors see a canary that is really in an output (the test can fail)', async () => {
    await withSandboxed(async (presso, targets) => {
      const dir = scratch();
      // A ZIP that holds the text canary's content as a member, and a PNG of the JPEG canary's picture.
      const folder = join(dir, 'control');
      mkdirSync(folder);
      copyFileSync(targets.dataDir.path, join(folder, 'copy.txt'));
      const zip = join(dir, 'control.zip');
      execFileSync('zip', ['-q', '-r', zip, '.'], { cwd: folder });
      const png = await sharp(targets.dataDirJpeg.path).png().toBuffer();
      const controls: HostileInput[] = [
        { name: 'zip', fileName: 'control.zip', bytes: readFileSync(zip), params: {}, aims: [] },
        { name: 'png', fileName: 'control.png', bytes: png, params: {}, aims: [] },
      ];
      const [zipSeen, pngSeen] = await Promise.all(
        controls.map((input) => exposure(presso, input, dir, targets)),
      );
      assert.deepEqual(leaked(targets, zipSeen!), [targets.dataDir]);
      assert.deepEqual(leaked(targets, pngSeen!), [targets.dataDirJpeg]);
    });
  });
});
