/**
 * The WHERE clause of the job list (JobStore.list), written once for both dialects: only the placeholder
 * differs (`?` in SQLite, `$n` in PostgreSQL), and `like` names the case-insensitive operator. `q` is matched
 * as a plain substring: LIKE's wildcards in it are escaped, so no caller input is ever a pattern.
 */
import type { JobListFilter, JobListPosition } from '../jobs/job-store.ts';

export interface JobListSql {
  where: string;
  params: (string | number)[];
}

/** `\`, `%` and `_` escaped with `\`, for `LIKE ... ESCAPE '\'`. */
export function escapeLike(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('%', '\\%').replaceAll('_', '\\_');
}

export function jobListWhere(
  accountId: string,
  filter: JobListFilter,
  after: JobListPosition | undefined,
  dialect: { placeholder: (index: number) => string; like: string },
): JobListSql {
  const params: (string | number)[] = [];
  const p = (value: string | number) => {
    params.push(value);
    return dialect.placeholder(params.length);
  };
  const clauses = [`account_id = ${p(accountId)}`];
  if (filter.status !== undefined) clauses.push(`status = ${p(filter.status)}`);
  if (filter.kind !== undefined) clauses.push(`kind = ${p(filter.kind)}`);
  if (filter.since !== undefined) clauses.push(`created_at >= ${p(filter.since)}`);
  if (filter.until !== undefined) clauses.push(`created_at < ${p(filter.until)}`);
  if (filter.minSize !== undefined) clauses.push(`input_size >= ${p(filter.minSize)}`);
  if (filter.maxSize !== undefined) clauses.push(`input_size <= ${p(filter.maxSize)}`);
  if (filter.q !== undefined && filter.q !== '') {
    const pattern = p(`%${escapeLike(filter.q)}%`);
    clauses.push(
      `(id ${dialect.like} ${pattern} ESCAPE '\\' OR input_name ${dialect.like} ${pattern} ESCAPE '\\')`,
    );
  }
  if (after !== undefined) {
    const at = p(after.createdAt);
    clauses.push(`(created_at < ${at} OR (created_at = ${at} AND id < ${p(after.id)}))`);
  }
  return { where: clauses.join(' AND '), params };
}
