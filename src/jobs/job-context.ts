/** What the job runner and its phases share: dependencies, options, the per-job scope and the phases' typed outcomes. */

import type { Logger } from 'pino';
import type { FileStore } from '../files/file-store.ts';
import type { OutboundClient } from '../outbound/outbound-client.ts';
import type { DetectedInput, Processor, ProcessResult } from '../processors/processor.ts';
import type { ProcessorRegistry } from '../processors/registry.ts';
import type { FileDescriptor, Job, JobStep, ReceivedFile } from './job.ts';
import type { JobEvents } from './job-events.ts';
import type { UsageRecorder, WebhookTrigger } from './job-reporting.ts';
import type { JobSecretBox } from './job-secrets.ts';
import type { JobStore } from './job-store.ts';
import type { OutputDestinations } from './output-destinations.ts';

export interface JobRunnerOptions {
  workRoot: string;
  publicUrl: string;
  outputTtlMs: number;
  maxInputBytes: number;
  maxAttempts: number;
}

export interface JobRunnerDeps {
  store: JobStore;
  files: FileStore;
  events: JobEvents;
  processors: ProcessorRegistry;
  outbound: OutboundClient;
  logger: Logger;
  /** Counts `bytesOut` of every completed job. */
  usage: UsageRecorder;
  /** Receives the finished job of every request that named a webhook URL. */
  webhooks: WebhookTrigger;
  /** Writes outputs of requests that named an external store. */
  destinations: OutputDestinations;
  /** Opens the secrets the job store sealed (fetch headers, passwords) for the run. */
  secrets: JobSecretBox;
  /** Sees every finished job (metrics); optional. */
  observer?: JobObserver;
}

/** A finished job, as operators count it: kind and format of the input, outcome, time and bytes. */
export interface FinishedJob {
  kind: string;
  format: string;
  status: 'completed' | 'failed';
  seconds: number;
  bytesIn: number;
  bytesOut: number;
}

export interface JobObserver {
  jobFinished(job: FinishedJob): void;
}

/** What every step of one job can see: the job, its private directory, its abort signal and the runner's wiring. */
export interface JobScope {
  job: Job;
  workDir: string;
  signal: AbortSignal;
  deps: JobRunnerDeps;
  options: JobRunnerOptions;
  log: Logger;
  /** The run's steps so far, in order: the runner stores them with the job when it ends. */
  steps: JobStep[];
}

/** The acquire phase's outcome: the input on local disk, described, and the processor that takes it. */
export interface AcquiredInput {
  inputPath: string;
  received: ReceivedFile;
  detected: DetectedInput;
  input: FileDescriptor;
  processor: Processor;
}

/** The produce phase's outcome: the file to publish (the processor's output, or the input if that was smaller). */
export interface ProducedOutput {
  result: ProcessResult;
  descriptor: FileDescriptor;
}

/**
 * Runs one named step: cancellation is checked before it starts, its name is logged, and its times and
 * outcome are noted in the scope (the job's detail shows them). The phases are lists of these calls, so the
 * step order is visible and each step's inputs are typed by what came before.
 */
export async function step<T>(scope: JobScope, name: string, run: () => Promise<T>): Promise<T> {
  scope.signal.throwIfAborted();
  scope.log.debug({ step: name }, 'job step');
  const startedAt = Date.now();
  try {
    const result = await run();
    scope.steps.push({ name, startedAt, finishedAt: Date.now(), outcome: 'completed' });
    return result;
  } catch (error) {
    scope.steps.push({ name, startedAt, finishedAt: Date.now(), outcome: 'failed' });
    throw error;
  }
}
