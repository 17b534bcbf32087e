/**
 * Schema of the scaled-out database, the same tables and columns as the embedded one
 * (sqlite/migrations.ts) in PostgreSQL's types: BIGINT for milliseconds and byte counts, TEXT for JSON
 * (the stores parse it, as on SQLite). A test compares the two schemas column by column, so they stay in
 * step. Append new migrations; never edit an applied one.
 */
export const PG_MIGRATIONS: string[] = [
  `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    rate_limit BIGINT NOT NULL,
    webhook_secret TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    prefix TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
  );
  CREATE TABLE usage (
    account_id TEXT PRIMARY KEY REFERENCES accounts(id),
    requests BIGINT NOT NULL DEFAULT 0,
    jobs BIGINT NOT NULL DEFAULT 0,
    bytes_in BIGINT NOT NULL DEFAULT 0,
    bytes_out BIGINT NOT NULL DEFAULT 0
  );
  CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    status TEXT NOT NULL,
    source TEXT NOT NULL,
    params TEXT NOT NULL,
    webhook_url TEXT,
    input TEXT,
    output TEXT,
    error TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    finished_at BIGINT,
    output_expires_at BIGINT,
    progress INTEGER
  );
  CREATE INDEX jobs_output_expiry ON jobs(output_expires_at) WHERE output_expires_at IS NOT NULL;
  CREATE INDEX jobs_finished ON jobs(finished_at) WHERE finished_at IS NOT NULL;
  CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    job_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    url TEXT NOT NULL,
    payload TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  );
  CREATE INDEX webhook_due ON webhook_deliveries(state, next_attempt_at);
  CREATE INDEX webhook_job ON webhook_deliveries(job_id);
  CREATE TABLE webhook_attempts (
    delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id),
    attempt INTEGER NOT NULL,
    at BIGINT NOT NULL,
    status_code INTEGER,
    error TEXT,
    duration_ms BIGINT NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
  );
  CREATE TABLE connectors (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    hint TEXT NOT NULL,
    secret TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );
  CREATE INDEX connectors_account ON connectors(account_id, created_at);
  `,
  // A finished job's reports (usage, webhook) are made once reported_at is set: see the SQLite twin.
  `
  ALTER TABLE jobs ADD COLUMN reported_at BIGINT;
  UPDATE jobs SET reported_at = finished_at WHERE finished_at IS NOT NULL;
  `,
  // The caller's secrets leave the job's parameters, sealed in `secrets` until the job ends: see the SQLite twin.
  `
  ALTER TABLE jobs ADD COLUMN secrets TEXT;
  UPDATE jobs SET secrets = 'legacy.' || jsonb_strip_nulls(jsonb_build_object(
      'headers', source::jsonb -> 'headers',
      'archive', jsonb_build_object('password', params::jsonb #> '{archive,password}'),
      'pdf', jsonb_build_object('password', params::jsonb #> '{pdf,password}')))::text
    WHERE finished_at IS NULL
      AND (coalesce(source::jsonb -> 'headers', '{}'::jsonb) <> '{}'::jsonb
        OR params::jsonb #> '{archive,password}' IS NOT NULL
        OR params::jsonb #> '{pdf,password}' IS NOT NULL);
  UPDATE jobs SET source = (source::jsonb - 'headers')::text,
      params = (params::jsonb #- '{archive,password}' #- '{pdf,password}')::text
    WHERE source::jsonb -> 'headers' IS NOT NULL
      OR params::jsonb #> '{archive,password}' IS NOT NULL
      OR params::jsonb #> '{pdf,password}' IS NOT NULL;
  `,
  // API key scopes: see the SQLite twin.
  `ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'jobs connectors';`,
  // Dashboard users, invites and sessions; disabled accounts and webhook secret rotation: see the SQLite twin.
  `
  ALTER TABLE accounts ADD COLUMN disabled_at BIGINT;
  ALTER TABLE accounts ADD COLUMN webhook_secret_previous TEXT;
  ALTER TABLE accounts ADD COLUMN webhook_secret_previous_until BIGINT;
  ALTER TABLE accounts ADD COLUMN webhook_secret_rotated_at BIGINT;
  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    email TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_sign_in_at BIGINT
  );
  CREATE INDEX users_account ON users(account_id, created_at);
  CREATE TABLE invites (
    token_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    email TEXT NOT NULL,
    role TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    accepted_at BIGINT
  );
  CREATE TABLE sessions (
    id_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
  );
  CREATE INDEX sessions_user ON sessions(user_id);
  `,
  // Dashboard (issue 22), API keys: name and last use. See the SQLite twin.
  `
  ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
  ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT;
  `,
  // Dashboard (issue 22), job list and detail. See the SQLite twin.
  `
  ALTER TABLE jobs ADD COLUMN kind TEXT;
  ALTER TABLE jobs ADD COLUMN input_name TEXT;
  ALTER TABLE jobs ADD COLUMN input_size BIGINT;
  ALTER TABLE jobs ADD COLUMN started_at BIGINT;
  ALTER TABLE jobs ADD COLUMN steps TEXT;
  UPDATE jobs SET kind = input::jsonb ->> 'type', input_name = input::jsonb ->> 'name',
      input_size = (input::jsonb ->> 'size')::bigint
    WHERE input IS NOT NULL;
  CREATE INDEX jobs_account_created ON jobs(account_id, created_at, id);
  CREATE INDEX jobs_account_status_created ON jobs(account_id, status, created_at, id);
  CREATE INDEX webhook_account_created ON webhook_deliveries(account_id, created_at, id);
  `,
  // Dashboard (issue 22), usage over time. See the SQLite twin.
  `
  CREATE TABLE usage_daily (
    account_id TEXT NOT NULL,
    date TEXT NOT NULL,
    kind TEXT NOT NULL,
    requests BIGINT NOT NULL DEFAULT 0,
    jobs BIGINT NOT NULL DEFAULT 0,
    failures BIGINT NOT NULL DEFAULT 0,
    bytes_in BIGINT NOT NULL DEFAULT 0,
    bytes_out BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, date, kind)
  );
  `,
  // Dashboard (issue 22), the operator's workers and their jobs. See the SQLite twin.
  `
  ALTER TABLE jobs ADD COLUMN worker TEXT;
  CREATE INDEX jobs_status_started ON jobs(status, started_at);
  `,
];
