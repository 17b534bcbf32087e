/** What the job runner and its steps share: dependencies, options and the per-job context. */
import type { Logger } from 'pino';
import type { FileStore } from '../files/file-store.ts';
import type { OutboundClient } from '../outbound/outbound-client.ts';
import type { DetectedInput, Processor, ProcessResult } from '../processors/processor.ts';
import type { ProcessorRegistry } from '../processors/registry.ts';
import type { FileDescriptor, Job, JobOutput, ReceivedFile } from './job.ts';
import type { JobEvents } from './job-events.ts';
import type { JobStore } from './job-store.ts';

export interface JobRunnerOptions {
  workRoot: string;
  publicUrl: string;
  outputTtlMs: number;
  maxInputBytes: number;
  maxAttempts: number;
}

export type JobFinishedListener = (job: Job) => Promise<void> | void;

export interface JobRunnerDeps {
  store: JobStore;
  files: FileStore;
  events: JobEvents;
  processors: ProcessorRegistry;
  outbound: OutboundClient;
  logger: Logger;
  /** Told about every finished job (webhooks, usage counters); their failures are logged, not fatal. */
  onFinished: JobFinishedListener[];
}

export interface JobContext {
  job: Job;
  workDir: string;
  signal: AbortSignal;
  deps: JobRunnerDeps;
  options: JobRunnerOptions;
  log: Logger;
  inputPath?: string;
  received?: ReceivedFile;
  detected?: DetectedInput;
  input?: FileDescriptor;
  processor?: Processor;
  result?: ProcessResult;
  outputDescriptor?: FileDescriptor;
  output?: JobOutput;
}

export interface JobStep {
  name: string;
  run(context: JobContext): Promise<void>;
}
