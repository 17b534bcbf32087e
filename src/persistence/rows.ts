/**
 * Rows of the tables both databases share (the same names and columns in SQLite and PostgreSQL, kept in step
 * by test/persistence/postgres.test.ts) and their mapping to the domain's records: written once for both
 * dialects' stores.
 */
import {
  type Account,
  type ApiKeyRecord,
  type DailyUsage,
  KEY_SCOPES,
  type KeyScope,
} from '../accounts/account-store.ts';
import type { ConnectorRecord } from '../connectors/connector-store.ts';
import type { Job, JobStep } from '../jobs/job.ts';
import type { StoreKind } from '../stores/catalog.ts';
import type { InviteRecord, SessionRecord, UserRecord, UserRole } from '../users/user-store.ts';
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
  /** The worker (host:pid:slot) that claimed the current or last run. */
  worker: string | null;
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
    worker: row.worker ?? undefined,
  };
}

export interface AccountRow {
  id: string;
  name: string;
  rate_limit: number;
  webhook_secret: string;
  created_at: number;
  disabled_at: number | null;
  webhook_secret_previous: string | null;
  webhook_secret_previous_until: number | null;
  webhook_secret_rotated_at: number | null;
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

/** Optional fields are left out when unset, so a record reads back exactly as it was written. */
export const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  name: r.name,
  rateLimit: r.rate_limit,
  webhookSecret: r.webhook_secret,
  createdAt: r.created_at,
  ...(r.disabled_at === null ? {} : { disabledAt: r.disabled_at }),
  ...(r.webhook_secret_previous === null ? {} : { previousWebhookSecret: r.webhook_secret_previous }),
  ...(r.webhook_secret_previous_until === null
    ? {}
    : { previousSecretValidUntil: r.webhook_secret_previous_until }),
  ...(r.webhook_secret_rotated_at === null ? {} : { webhookSecretRotatedAt: r.webhook_secret_rotated_at }),
});

/** Scopes are stored space-separated; unknown words (none today) are dropped rather than trusted. */
export const parseScopes = (text: string): KeyScope[] =>
  KEY_SCOPES.filter((scope) => text.split(' ').includes(scope));

export const formatScopes = (scopes: readonly KeyScope[] | undefined): string =>
  (scopes ?? KEY_SCOPES).join(' ');

export const toKey = (r: KeyRow): ApiKeyRecord => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  prefix: r.prefix,
  scopes: parseScopes(r.scopes),
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

export interface UserRow {
  id: string;
  account_id: string;
  email: string;
  role: UserRole;
  password_hash: string;
  created_at: number;
  last_sign_in_at: number | null;
}

export const toUser = (r: UserRow): UserRecord => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  role: r.role,
  passwordHash: r.password_hash,
  createdAt: r.created_at,
  lastSignInAt: r.last_sign_in_at ?? undefined,
});

export interface InviteRow {
  token_hash: string;
  account_id: string;
  email: string;
  role: UserRole;
  created_at: number;
  expires_at: number;
}

export const toInvite = (r: InviteRow): InviteRecord => ({
  tokenHash: r.token_hash,
  accountId: r.account_id,
  email: r.email,
  role: r.role,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

export interface SessionRow {
  id_hash: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

export const toSession = (r: SessionRow): SessionRecord => ({
  idHash: r.id_hash,
  userId: r.user_id,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  expiresAt: r.expires_at,
});
