/**
 * presso-client as a user runs it: the package's bin as a child process of this Node, with only PATH, HOME
 * and the variables given (key, URL and CA from the environment, as the CLI documents), and its JSON lines.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

export const pressoClientBin = resolve(import.meta.dirname, '../../packages/client/bin/presso-client');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  env: Record<string, string>,
  options: { stdin?: string; onLine?: (line: string, child: ChildProcess) => void } = {},
): Promise<CliRun> {
  const child = spawn(process.execPath, [pressoClientBin, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) options.onLine?.(line, child);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  child.stdin.end(options.stdin ?? '');
  return new Promise((ok) => child.once('close', (code) => ok({ code, stdout, stderr })));
}

export interface CliEvent {
  event: string;
  file?: string;
  [key: string]: unknown;
}

/** The `--json` lines of a run. */
export const cliEvents = (run: CliRun): CliEvent[] =>
  run.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as CliEvent);

/** The files of one kind of event (`done`, `skipped`, `failed`), sorted. */
export const cliFiles = (run: CliRun, event: string): string[] =>
  cliEvents(run)
    .filter((e) => e.event === event)
    .map((e) => e.file!)
    .sort();
