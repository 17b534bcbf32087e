/** The ergonomic names of the API's shapes, all taken from the generated operation types. */
import type { Operations } from './generated/openapi.ts';

type Ok<
  Name extends keyof Operations,
  Status extends keyof Operations[Name]['responses'],
> = Operations[Name]['responses'][Status];

/** A synchronous result: `{id, url, input, output, metadata?}`. */
export type Result = Ok<'fetchFile', 200>;
/** An asynchronous request's acknowledgement: `{id, status}`. */
export type Acknowledgement = Ok<'fetchFile', 202>;
/** `GET /1.0/jobs/{id}`: only `id` and `status` while running (plus `progress` for media). */
export type JobRecord = Ok<'getJob', 200>;
export type JobStatus = JobRecord['status'];
/** A completed job's record: a result with `status: 'completed'`. */
export type CompletedJob = Result & { status: 'completed' };
/** `{name, type, format, mime, size, sha1}`; `size` in bytes. */
export type FileDescriptor = Result['output'];
/** `POST /1.0/fetch`'s body. */
export type FetchRequest = Operations['fetchFile']['body']['schema'];
/** Processing parameters (`image`, `pdf`, `video`, ..., `store`, `webhook`, `async`, `metadata`). */
export type Params = Omit<FetchRequest, 'url' | 'headers'>;
export type Account = Ok<'getAccount', 200>;
export type Connector = Ok<'createConnector', 201>;
export type ConnectorRequest = Operations['createConnector']['body']['schema'];
export type ConnectorTestRequest = Operations['testConnector']['body']['schema'];
export type WebhookDeliveryPage = Ok<'listWebhookDeliveries', 200>;
export type WebhookDelivery = WebhookDeliveryPage['deliveries'][number];
export type WebhookReplay = Ok<'replayWebhookDelivery', 202>;
export type JobList = Ok<'listJobs', 200>;
export type JobListQuery = Operations['listJobs']['query'];

/** The rate-limit headers of the last answer (`X-RateLimit-*`). */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds left in the window. */
  reset: number;
}
