/**
 * Job records in the embedded database (table `jobs`). Structured fields (source, params, input,
 * output, error) are stored as JSON text and parsed back on read; the request's secrets are sealed
 * (`secrets`) and set to NULL when the job ends.
 */
import type { ErrorRecord } from '../../errors/catalog.ts';
import type { FileDescriptor, Job, JobOutput, JobStep, ReceivedFile } from '../../jobs/job.ts';
import type { JobSecretBox } from '../../jobs/job-secrets.ts';
import type { JobListFilter, JobListPosition, JobPage, JobStore, NewJob } from '../../jobs/job-store.ts';
import { jobListWhere } from '../job-list-sql.ts';
import { type JobRow, toJob } from '../rows.ts';
import { all, type Database, get, run } from './database.ts';

export class SqliteJobStore implements JobStore {
  readonly #db: Database;
  readonly #secrets: JobSecretBox;
  readonly #now: () => number;

  constructor(db: Database, secrets: JobSecretBox, now: () => number = Date.now) {
    this.#db = db;
    this.#secrets = secrets;
    this.#now = now;
  }

  async create(job: NewJob): Promise<Job> {
    const now = this.#now();
    run(
      this.#db,
      `INSERT INTO jobs (id, account_id, status, source, params, webhook_url, input, secrets, created_at, updated_at,
         kind, input_name, input_size)
         VALUES (?, ?, 'enqueued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      job.id,
      job.accountId,
      JSON.stringify(job.source),
      JSON.stringify(job.params),
      job.webhookUrl ?? null,
      job.input ? JSON.stringify(job.input) : null,
      this.#secrets.seal(job.id, job.secrets) ?? null,
      now,
      now,
      job.kind ?? null,
      job.input?.name ?? null,
      job.input?.size ?? null,
    );
    return this.#require(job.id);
  }

  async get(id: string): Promise<Job | undefined> {
    const row = get<JobRow>(this.#db, 'SELECT * FROM jobs WHERE id = ?', id);
    return row ? toJob(row) : undefined;
  }

  async list(
    accountId: string,
    filter: JobListFilter,
    page: { limit: number; after?: JobListPosition | undefined },
  ): Promise<JobPage> {
    const { where, params } = jobListWhere(accountId, filter, page.after, {
      placeholder: (index) => `?${index}`,
      like: 'LIKE',
    });
    const rows = all<JobRow>(
      this.#db,
      `SELECT * FROM jobs WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${Math.trunc(page.limit) + 1}`,
      ...params,
    );
    const jobs = rows.slice(0, page.limit).map(toJob);
    const last = jobs.at(-1);
    const more = rows.length > page.limit && last !== undefined;
    return { jobs, next: more ? { createdAt: last.createdAt, id: last.id } : undefined };
  }

  async markProcessing(id: string, worker?: string): Promise<Job | undefined> {
    const now = this.#now();
    run(
      this.#db,
      `UPDATE jobs SET status = 'processing', attempts = attempts + 1, progress = NULL, updated_at = ?, started_at = ?,
         worker = ? WHERE id = ? AND status IN ('enqueued', 'processing')`,
      now,
      now,
      worker ?? null,
      id,
    );
    return this.get(id);
  }

  async listRunning(limit: number): Promise<Job[]> {
    const rows = all<JobRow>(
      this.#db,
      `SELECT * FROM jobs WHERE status = 'processing' ORDER BY started_at, id LIMIT ?`,
      Math.trunc(limit),
    );
    return rows.map(toJob);
  }

  async setProgress(id: string, percent: number): Promise<void> {
    run(
      this.#db,
      `UPDATE jobs SET progress = ? WHERE id = ? AND status = 'processing'`,
      Math.max(0, Math.min(100, Math.round(percent))),
      id,
    );
  }

  async releaseAttempt(id: string): Promise<void> {
    run(
      this.#db,
      `UPDATE jobs SET status = 'enqueued', attempts = MAX(attempts - 1, 0), updated_at = ?
         WHERE id = ? AND status = 'processing'`,
      this.#now(),
      id,
    );
  }

  async setInput(id: string, input: ReceivedFile & Partial<FileDescriptor>): Promise<void> {
    run(
      this.#db,
      `UPDATE jobs SET input = ?, updated_at = ?, input_name = ?, input_size = ?, kind = COALESCE(?, kind)
         WHERE id = ?`,
      JSON.stringify(input),
      this.#now(),
      input.name,
      input.size,
      input.type ?? null,
      id,
    );
  }

  async complete(id: string, input: FileDescriptor, output: JobOutput, steps?: JobStep[]): Promise<Job> {
    const now = this.#now();
    run(
      this.#db,
      `UPDATE jobs SET status = 'completed', input = ?, output = ?, error = NULL, secrets = NULL, updated_at = ?,
         finished_at = ?, output_expires_at = ?, kind = ?, input_name = ?, input_size = ?, steps = COALESCE(?, steps)
         WHERE id = ?`,
      JSON.stringify(input),
      JSON.stringify(output),
      now,
      now,
      output.expiresAt,
      input.type,
      input.name,
      input.size,
      steps ? JSON.stringify(steps) : null,
      id,
    );
    return this.#require(id);
  }

  async fail(id: string, error: ErrorRecord, steps?: JobStep[]): Promise<Job> {
    const now = this.#now();
    run(
      this.#db,
      `UPDATE jobs SET status = 'failed', error = ?, secrets = NULL, updated_at = ?, finished_at = ?,
         steps = COALESCE(?, steps) WHERE id = ?`,
      JSON.stringify(error),
      now,
      now,
      steps ? JSON.stringify(steps) : null,
      id,
    );
    return this.#require(id);
  }

  async markReported(id: string): Promise<void> {
    run(this.#db, 'UPDATE jobs SET reported_at = ? WHERE id = ? AND reported_at IS NULL', this.#now(), id);
  }

  async listOutputsExpiredBefore(now: number, limit: number): Promise<Job[]> {
    const rows = all<JobRow>(
      this.#db,
      'SELECT * FROM jobs WHERE output_expires_at IS NOT NULL AND output_expires_at <= ? LIMIT ?',
      now,
      limit,
    );
    return rows.map(toJob);
  }

  async clearOutput(id: string): Promise<void> {
    run(this.#db, 'UPDATE jobs SET output_expires_at = NULL WHERE id = ?', id);
  }

  async deleteFinishedBefore(before: number): Promise<number> {
    const result = run(
      this.#db,
      'DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?',
      before,
    );
    return Number(result.changes);
  }

  async #require(id: string): Promise<Job> {
    const job = await this.get(id);
    if (!job) throw new Error(`job ${id} vanished`);
    return job;
  }
}
