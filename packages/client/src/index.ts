/**
 * `@presso/client` for browsers, edge runtimes and Node alike: no Node-only import on this path (a test
 * bundles it for the browser). Paths, Node streams and file downloads: `@presso/client/node`.
 */
export {
  type BlobSource,
  type CallOptions,
  type CompressOptions,
  type FetchSource,
  isAcknowledgement,
  PressoClient,
  type PressoClientOptions,
  type Submission,
  type UploadOptions,
} from './client.ts';
export * from './errors.ts';
export type { Operations } from './generated/openapi.ts';
export type { FetchFunction, RetryInfo, RetryOptions } from './http.ts';
export type * from './types.ts';
export type { PollSchedule, PollStep, WaitOptions } from './wait.ts';
export { PressoWebhookError, signWebhook, type VerifyOptions, verifyWebhook } from './webhooks.ts';
