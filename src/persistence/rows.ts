/**
 * Rows of the tables both databases share (the same names and columns in SQLite and PostgreSQL, kept in step
 * by test/persistence/postgres.test.ts) and their mapping to the domain's records: written once for both
 * dialects' stores.
 */
import type { Account, ApiKeyRecord, DailyUsage, KeyScope } from '../accounts/account-store.ts';
import type { ConnectorRecord } from '../connectors/connector-store.ts';
import type { Job, JobStep } from '../jobs/job.ts';
import type { StoreKind } from '../stores/external-store.ts';
import type { WebhookAttempt, WebhookDelivery, WebhookDeliveryState } from '../webhooks/webhook-store.ts';

export interface JobRow {
  id: string;
  account_id: string;
  status: Job['status'];
  source: string;
  params: string;
  webhook_url: string | null;
  input: string | null;
  output: string | null;
  error: string | null;
  attempts: number;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  progress: number | null;
  reported_at: number | null;
  /** Sealed by JobSecretBox; NULL once the job has ended. */
  secrets: string | null;
  /** The input's kind, name and size, copied from `input` for the job list's filters. */
  kind: string | null;
  input_name: string | null;
  input_size: number | null;
  started_at: number | null;
  /** JSON list of the last run's steps, written when the job ends. */
  steps: string | null;
}

export function parse<T>(text: string | null): T | undefined {
  return text === null ? undefined : (JSON.parse(text) as T);
}

export function toJob(row: JobRow): Job {
  return {
    id: row.id,
    accountId: row.account_id,
    status: row.status,
    source: JSON.parse(row.source),
    params: JSON.parse(row.params),
    webhookUrl: row.webhook_url ?? undefined,
    input: parse(row.input),
    output: parse(row.output),
    error: parse(row.error),
    attempts: row.attempts,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at ?? undefined,
    progress: row.progress ?? undefined,
    reportedAt: row.reported_at ?? undefined,
    sealedSecrets: row.secrets ?? undefined,
    kind: row.kind ?? undefined,
    startedAt: row.started_at ?? undefined,
    steps: parse<JobStep[]>(row.steps),
  };
}

export interface AccountRow {
  id: string;
  name: string;
  rate_limit: number;
  webhook_secret: string;
  created_at: number;
}

export interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  /** Space-separated. */
  scopes: string;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

/** The key columns every key query selects (never the hash). */
export const KEY_COLUMNS = 'id, account_id, name, prefix, scopes, created_at, revoked_at, last_used_at';

export const toScopes = (text: string): KeyScope[] =>
  text.split(' ').filter((scope): scope is KeyScope => scope === 'jobs' || scope === 'connectors');

export const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  name: r.name,
  rateLimit: r.rate_limit,
  webhookSecret: r.webhook_secret,
  createdAt: r.created_at,
});

export const toKey = (r: KeyRow): ApiKeyRecord => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  prefix: r.prefix,
  scopes: toScopes(r.scopes),
  createdAt: r.created_at,
  revokedAt: r.revoked_at ?? undefined,
  lastUsedAt: r.last_used_at ?? undefined,
});

export interface DailyUsageRow {
  date: string;
  kind: string;
  requests: number;
  jobs: number;
  failures: number;
  bytes_in: number;
  bytes_out: number;
}

export const toDailyUsage = (r: DailyUsageRow): DailyUsage => ({
  date: r.date,
  kind: r.kind,
  requests: r.requests,
  jobs: r.jobs,
  failures: r.failures,
  bytesIn: r.bytes_in,
  bytesOut: r.bytes_out,
});

export interface ConnectorRow {
  id: string;
  account_id: string;
  kind: StoreKind;
  name: string;
  hint: string;
  secret: string;
  created_at: number;
}

export const toConnector = (row: ConnectorRow): ConnectorRecord => ({
  id: row.id,
  accountId: row.account_id,
  kind: row.kind,
  name: row.name,
  hint: row.hint,
  secret: row.secret,
  createdAt: row.created_at,
});

export interface DeliveryRow {
  id: string;
  job_id: string;
  account_id: string;
  url: string;
  payload: string;
  state: WebhookDeliveryState;
  attempts: number;
  next_attempt_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  at: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    jobId: row.job_id,
    accountId: row.account_id,
    url: row.url,
    payload: row.payload,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at ?? undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toAttempt(row: AttemptRow): WebhookAttempt {
  return {
    attempt: row.attempt,
    at: row.at,
    statusCode: row.status_code ?? undefined,
    error: row.error ?? undefined,
    durationMs: row.duration_ms,
  };
}
