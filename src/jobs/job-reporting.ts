/**
 * Where the job layer reports what happened: the account's usage counters and the job's webhook.
 * Narrow interfaces, so `jobs/` imports neither `accounts/` nor `webhooks/`; `AccountService` and
 * `WebhookDispatcher` satisfy them as they are.
 */

export interface UsageDelta {
  requests?: number;
  jobs?: number;
  bytesIn?: number;
  bytesOut?: number;
}

/** A day's counters per kind of file: every finished job counts once, on the day it finished. */
export interface DailyUsageDelta extends UsageDelta {
  failures?: number;
}

export interface UsageRecorder {
  addUsage(accountId: string, delta: UsageDelta): Promise<void>;
  /** Adds to the account's counters of the UTC day of `at`, for `kind`. */
  addDailyUsage(accountId: string, at: number, kind: string, delta: DailyUsageDelta): Promise<void>;
}

export interface WebhookDelivery {
  jobId: string;
  accountId: string;
  url: string;
  payload: object;
  /** Idempotency key: a second enqueue with the same key (a report repeated after a crash) adds nothing. */
  key?: string | undefined;
}

export interface WebhookTrigger {
  /** Stores a delivery to be sent (and retried) in the background. */
  enqueue(delivery: WebhookDelivery): Promise<unknown>;
}
