/** What the job runner and its steps share: dependencies, options and the per-job context. */
import type { Logger } from 'pino';
import type { FileStore } from '../files/file-store.ts';
import type { OutboundClient } from '../outbound/outbound-client.ts';
import type { DetectedInput, Processor, ProcessResult } from '../processors/processor.ts';
import type { ProcessorRegistry } from '../processors/registry.ts';
import type { FileDescriptor, Job, JobOutput, ReceivedFile } from './job.ts';
import type { JobEvents } from './job-events.ts';
import type { UsageRecorder, WebhookTrigger } from './job-reporting.ts';
import type { JobStore } from './job-store.ts';

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
