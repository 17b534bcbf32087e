/**
 * Runs an external image tool (heif-convert, cjxl, gifsicle) with no shell, a deadline and the job's
 * abort signal: the tool is killed when either fires, so a hostile input cannot hold a worker.
 */
import { spawn } from 'node:child_process';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import type { Deadline } from './limits.ts';

const MAX_STDERR = 4096;

export interface ToolRun {
  deadline: Deadline;
  signal: AbortSignal;
}

/** Resolves when the tool exits 0; a failure is the input's problem (422) unless the tool is missing. */
export function runTool(command: string, args: string[], run: ToolRun): Promise<void> {
  if (run.signal.aborted) return Promise.reject(run.signal.reason);
  const timeout = run.deadline.remainingMs();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout,
      killSignal: 'SIGKILL',
      signal: run.signal,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR) stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (run.signal.aborted) reject(run.signal.reason);
      else if (error.code === 'ENOENT') reject(new Error(`${command} is not installed`, { cause: error }));
      else reject(error);
    });
    child.on('close', (code, signal) => {
      if (run.signal.aborted) return reject(run.signal.reason);
      if (code === 0) return resolve();
      if (signal !== null) return reject(run.deadline.exceeded(new Error(`${command} killed by ${signal}`)));
      const detail = stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300);
      reject(new UnprocessableInputError(`${command} could not process the image: ${detail}`));
    });
  });
}
