/**
 * Job records in PostgreSQL (table `jobs`), the scaled-out twin of sqlite-job-store.ts: the same columns,
 * the same JSON text for structured fields, the same sealed secrets wiped when the job ends, the same
 * guards in each UPDATE's WHERE clause, so any API or worker process sees the same record.
 */
import type pg from 'pg';
import type { ErrorRecord } from '../../errors/catalog.ts';
import type { FileDescriptor, Job, JobOutput, JobStep, ReceivedFile } from '../../jobs/job.ts';
import type { JobSecretBox } from '../../jobs/job-secrets.ts';
import type { JobListFilter, JobListPosition, JobPage, JobStore, NewJob } from '../../jobs/job-store.ts';
import { jobListWhere } from '../job-list-sql.ts';
import { type JobRow, toJob } from '../rows.ts';
import { execute, query } from './database.ts';

export class PgJobStore implements JobStore {
  readonly #db: pg.Pool;
  readonly #secrets: JobSecretBox;
  readonly #now: () => number;

  constructor(db: pg.Pool, secrets: JobSecretBox, now: () => number = Date.now) {
    this.#db = db;
    this.#secrets = secrets;
    this.#now = now;
  }

  async create(job: NewJob): Promise<Job> {
    const now = this.#now();
    const [row] = await query<JobRow>(
      this.#db,
      `INSERT INTO jobs (id, account_id, status, source, params, webhook_url, input, secrets, created_at, updated_at,
         kind, input_name, input_size)
         VALUES ($1, $2, 'enqueued', $3, $4, $5, $6, $7, $8, $8, $9, $10, $11) RETURNING *`,
      [
        job.id,
        job.accountId,
        JSON.stringify(job.source),
        JSON.stringify(job.params),
        job.webhookUrl ?? null,
        job.input ? JSON.stringify(job.input) : null,
        this.#secrets.seal(job.id, job.secrets) ?? null,
        now,
        job.kind ?? null,
        job.input?.name ?? null,
        job.input?.size ?? null,
      ],
    );
    if (!row) throw new Error(`job ${job.id} was not stored`);
    return toJob(row);
  }

  async get(id: string): Promise<Job | undefined> {
    const [row] = await query<JobRow>(this.#db, 'SELECT * FROM jobs WHERE id = $1', [id]);
    return row ? toJob(row) : undefined;
  }

  async list(
    accountId: string,
    filter: JobListFilter,
    page: { limit: number; after?: JobListPosition | undefined },
  ): Promise<JobPage> {
    const { where, params } = jobListWhere(accountId, filter, page.after, {
      placeholder: (index) => `$${index}`,
      like: 'ILIKE',
    });
    const rows = await query<JobRow>(
      this.#db,
      `SELECT * FROM jobs WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${Math.trunc(page.limit) + 1}`,
      params,
    );
    const jobs = rows.slice(0, page.limit).map(toJob);
    const last = jobs.at(-1);
    const more = rows.length > page.limit && last !== undefined;
    return { jobs, next: more ? { createdAt: last.createdAt, id: last.id } : undefined };
  }

  async markProcessing(id: string, worker?: string): Promise<Job | undefined> {
    await execute(
      this.#db,
      `UPDATE jobs SET status = 'processing', attempts = attempts + 1, progress = NULL, updated_at = $1, started_at = $1,
         worker = $2 WHERE id = $3 AND status IN ('enqueued', 'processing')`,
      [this.#now(), worker ?? null, id],
    );
    return this.get(id);
  }

  async listRunning(limit: number): Promise<Job[]> {
    const rows = await query<JobRow>(
      this.#db,
      `SELECT * FROM jobs WHERE status = 'processing' ORDER BY started_at, id LIMIT $1`,
      [Math.trunc(limit)],
    );
    return rows.map(toJob);
  }

  async setProgress(id: string, percent: number): Promise<void> {
    await execute(this.#db, `UPDATE jobs SET progress = $1 WHERE id = $2 AND status = 'processing'`, [
      Math.max(0, Math.min(100, Math.round(percent))),
      id,
    ]);
  }

  async releaseAttempt(id: string): Promise<void> {
    await execute(
      this.#db,
      `UPDATE jobs SET status = 'enqueued', attempts = GREATEST(attempts - 1, 0), updated_at = $1
         WHERE id = $2 AND status = 'processing'`,
      [this.#now(), id],
    );
  }

  async setInput(id: string, input: ReceivedFile & Partial<FileDescriptor>): Promise<void> {
    await execute(
      this.#db,
      `UPDATE jobs SET input = $1, updated_at = $2, input_name = $3, input_size = $4, kind = COALESCE($5, kind)
         WHERE id = $6`,
      [JSON.stringify(input), this.#now(), input.name, input.size, input.type ?? null, id],
    );
  }

  async complete(id: string, input: FileDescriptor, output: JobOutput, steps?: JobStep[]): Promise<Job> {
    const now = this.#now();
    return this.#updated(
      id,
      `UPDATE jobs SET status = 'completed', input = $1, output = $2, error = NULL, secrets = NULL, updated_at = $3,
         finished_at = $3, output_expires_at = $4, kind = $5, input_name = $6, input_size = $7,
         steps = COALESCE($8, steps) WHERE id = $9 RETURNING *`,
      [
        JSON.stringify(input),
        JSON.stringify(output),
        now,
        output.expiresAt,
        input.type,
        input.name,
        input.size,
        steps ? JSON.stringify(steps) : null,
        id,
      ],
    );
  }

  async fail(id: string, error: ErrorRecord, steps?: JobStep[]): Promise<Job> {
    const now = this.#now();
    return this.#updated(
      id,
      `UPDATE jobs SET status = 'failed', error = $1, secrets = NULL, updated_at = $2, finished_at = $2,
         steps = COALESCE($3, steps) WHERE id = $4 RETURNING *`,
      [JSON.stringify(error), now, steps ? JSON.stringify(steps) : null, id],
    );
  }

  async markReported(id: string): Promise<void> {
    await execute(this.#db, 'UPDATE jobs SET reported_at = $1 WHERE id = $2 AND reported_at IS NULL', [
      this.#now(),
      id,
    ]);
  }

  async listOutputsExpiredBefore(now: number, limit: number): Promise<Job[]> {
    const rows = await query<JobRow>(
      this.#db,
      'SELECT * FROM jobs WHERE output_expires_at IS NOT NULL AND output_expires_at <= $1 LIMIT $2',
      [now, limit],
    );
    return rows.map(toJob);
  }

  async clearOutput(id: string): Promise<void> {
    await execute(this.#db, 'UPDATE jobs SET output_expires_at = NULL WHERE id = $1', [id]);
  }

  async deleteFinishedBefore(before: number): Promise<number> {
    return execute(this.#db, 'DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < $1', [before]);
  }

  async #updated(id: string, sql: string, params: unknown[]): Promise<Job> {
    const [row] = await query<JobRow>(this.#db, sql, params);
    if (!row) throw new Error(`job ${id} vanished`);
    return toJob(row);
  }
}
