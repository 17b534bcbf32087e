/** Schema of the embedded database. Append new migrations; never edit an applied one. */
export const MIGRATIONS: string[] = [
  `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    rate_limit INTEGER NOT NULL,
    webhook_secret TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    prefix TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  CREATE TABLE usage (
    account_id TEXT PRIMARY KEY REFERENCES accounts(id),
    requests INTEGER NOT NULL DEFAULT 0,
    jobs INTEGER NOT NULL DEFAULT 0,
    bytes_in INTEGER NOT NULL DEFAULT 0,
    bytes_out INTEGER NOT NULL DEFAULT 0
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
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    finished_at INTEGER,
    output_expires_at INTEGER
  );
  CREATE INDEX jobs_output_expiry ON jobs(output_expires_at) WHERE output_expires_at IS NOT NULL;
  CREATE INDEX jobs_finished ON jobs(finished_at) WHERE finished_at IS NOT NULL;
  CREATE TABLE queue (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id TEXT NOT NULL UNIQUE,
    state TEXT NOT NULL DEFAULT 'waiting',
    available_at INTEGER NOT NULL
  );
  CREATE INDEX queue_waiting ON queue(state, available_at, seq);
  CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    job_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    url TEXT NOT NULL,
    payload TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX webhook_due ON webhook_deliveries(state, next_attempt_at);
  CREATE INDEX webhook_job ON webhook_deliveries(job_id);
  CREATE TABLE webhook_attempts (
    delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id),
    attempt INTEGER NOT NULL,
    at INTEGER NOT NULL,
    status_code INTEGER,
    error TEXT,
    duration_ms INTEGER NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
  );
  `,
  // Progress (0-100) of a processing job, reported by long processors (video, audio).
  'ALTER TABLE jobs ADD COLUMN progress INTEGER;',
  // Store connectors: credentials encrypted by the service (src/connectors/credential-cipher.ts).
  `
  CREATE TABLE connectors (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    hint TEXT NOT NULL,
    secret TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX connectors_account ON connectors(account_id, created_at);
  `,
  // Queue lanes (jobs/job-queue.ts): video and audio on their own workers.
  `
  ALTER TABLE queue ADD COLUMN lane TEXT NOT NULL DEFAULT 'standard';
  CREATE INDEX queue_lane_waiting ON queue(lane, state, available_at, seq);
  `,
  // Priorities: 0 for a job a client waits for (synchronous), 1 for background work.
  `
  ALTER TABLE queue ADD COLUMN priority INTEGER NOT NULL DEFAULT 1;
  CREATE INDEX queue_priority_waiting ON queue(lane, state, priority, available_at, seq);
  `,
  // The transactional outbox of a finished job: its reports (usage, webhook) are made once reported_at is
  // set, so a run that died between finishing the job and reporting it is reported by the next run.
  `
  ALTER TABLE jobs ADD COLUMN reported_at INTEGER;
  UPDATE jobs SET reported_at = finished_at WHERE finished_at IS NOT NULL;
  `,
  // The caller's secrets (fetch headers, archive and PDF passwords; jobs/job-secrets.ts) leave the job's
  // parameters: new jobs keep them sealed in `secrets` until they end. A job that had not ended keeps its
  // secrets, moved here in plain JSON (tagged legacy) and wiped when it ends; every row loses the plain copy.
  `
  ALTER TABLE jobs ADD COLUMN secrets TEXT;
  UPDATE jobs SET secrets = 'legacy.' || json_patch('{}', json_object(
      'headers', json_extract(source, '$.headers'),
      'archive', json_object('password', json_extract(params, '$.archive.password')),
      'pdf', json_object('password', json_extract(params, '$.pdf.password'))))
    WHERE finished_at IS NULL
      AND (coalesce(json_extract(source, '$.headers'), '{}') <> '{}'
        OR json_extract(params, '$.archive.password') IS NOT NULL
        OR json_extract(params, '$.pdf.password') IS NOT NULL);
  UPDATE jobs SET source = json_remove(source, '$.headers'),
      params = json_remove(params, '$.archive.password', '$.pdf.password')
    WHERE json_extract(source, '$.headers') IS NOT NULL
      OR json_extract(params, '$.archive.password') IS NOT NULL
      OR json_extract(params, '$.pdf.password') IS NOT NULL;
  `,
  // Fair sharing (jobs/job-queue.ts): each row names its account, and the accounts with jobs in a lane take
  // turns, the one served longest ago first: `served` orders them (the lane's count of starts at the account's
  // last one; an account arriving takes the last place, rowid breaking the tie).
  `
  ALTER TABLE queue ADD COLUMN account TEXT NOT NULL DEFAULT '';
  CREATE INDEX queue_account_waiting ON queue(lane, state, account, priority, available_at, seq);
  CREATE TABLE queue_turns (
    lane TEXT NOT NULL,
    account TEXT NOT NULL,
    served INTEGER NOT NULL DEFAULT 0,
    UNIQUE (lane, account)
  );
  CREATE INDEX queue_turns_order ON queue_turns(lane, served);
  INSERT INTO queue_turns (lane, account) SELECT DISTINCT lane, account FROM queue;
  `,
  // API key scopes (http/plugins/access-control.ts): `jobs` and `connectors`, space-separated. Keys made
  // before scopes existed keep doing everything they did.
  `ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'jobs connectors';`,
  // Dashboard users (users/user-store.ts): accounts can be disabled and rotate their webhook secret (the
  // previous one still signs until webhook_secret_previous_until); users sign in with argon2id-hashed
  // passwords; invites and sessions are stored as SHA-256 hashes of their tokens.
  `
  ALTER TABLE accounts ADD COLUMN disabled_at INTEGER;
  ALTER TABLE accounts ADD COLUMN webhook_secret_previous TEXT;
  ALTER TABLE accounts ADD COLUMN webhook_secret_previous_until INTEGER;
  ALTER TABLE accounts ADD COLUMN webhook_secret_rotated_at INTEGER;
  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    email TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_sign_in_at INTEGER
  );
  CREATE INDEX users_account ON users(account_id, created_at);
  CREATE TABLE invites (
    token_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    email TEXT NOT NULL,
    role TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    accepted_at INTEGER
  );
  CREATE TABLE sessions (
    id_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX sessions_user ON sessions(user_id);
  `,
  // Dashboard (issue 22), API keys: a name, and when each was last used (written at most once a minute per key).
  `
  ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
  ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;
  `,
  // Dashboard (issue 22), job list and detail: the input's kind, name and size as columns the list filters on,
  // the current run's start and the steps it ran (JSON), and indexes for an account's jobs and deliveries
  // newest first (keyset pagination on created_at, id).
  `
  ALTER TABLE jobs ADD COLUMN kind TEXT;
  ALTER TABLE jobs ADD COLUMN input_name TEXT;
  ALTER TABLE jobs ADD COLUMN input_size INTEGER;
  ALTER TABLE jobs ADD COLUMN started_at INTEGER;
  ALTER TABLE jobs ADD COLUMN steps TEXT;
  UPDATE jobs SET kind = json_extract(input, '$.type'), input_name = json_extract(input, '$.name'),
      input_size = json_extract(input, '$.size')
    WHERE input IS NOT NULL;
  CREATE INDEX jobs_account_created ON jobs(account_id, created_at, id);
  CREATE INDEX jobs_account_status_created ON jobs(account_id, status, created_at, id);
  CREATE INDEX webhook_account_created ON webhook_deliveries(account_id, created_at, id);
  `,
  // Dashboard (issue 22), usage over time: counters per account, UTC day and kind of file ("http" for requests).
  `
  CREATE TABLE usage_daily (
    account_id TEXT NOT NULL,
    date TEXT NOT NULL,
    kind TEXT NOT NULL,
    requests INTEGER NOT NULL DEFAULT 0,
    jobs INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0,
    bytes_in INTEGER NOT NULL DEFAULT 0,
    bytes_out INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, date, kind)
  );
  `,
  // Dashboard (issue 22), the operator's workers and their jobs: which worker (host:pid:slot) claimed each job's
  // current or last run.
  `
  ALTER TABLE jobs ADD COLUMN worker TEXT;
  CREATE INDEX jobs_status_started ON jobs(status, started_at);
  `,
];
