/**
 * How a process runs: the embedded default (SQLite, local disk, in-process queue and limits) or scaled out
 * over engines operators already run (PostgreSQL, Redis with BullMQ, an S3-compatible bucket), and which
 * role it plays there. Checked at start-up: scaled mode names every variable it is missing.
 */
import { bool, duration, int, type Loaded, oneOf, optionalStr, section, str } from '../config/env.ts';
import { ConfigError } from '../errors/catalog.ts';

export const ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];

export const scaledConfig = section(
  {
    mode: oneOf('PRESSO_MODE', {
      values: ['embedded', 'scaled'] as const,
      default: 'embedded',
      doc: 'embedded: one process with SQLite, local files and in-process queue; scaled: PostgreSQL, Redis (BullMQ) and an S3 bucket shared by many processes',
    }),
    role: oneOf('PRESSO_ROLE', {
      values: ROLES,
      default: 'all',
      doc: 'What this process does (also `serve --role`): all (API and workers), api (HTTP only) or worker (jobs, webhooks, sweeping; health and metrics only); api and worker need scaled mode',
    }),
    databaseUrl: optionalStr('PRESSO_DATABASE_URL', {
      doc: 'Scaled mode: PostgreSQL connection string (postgres://user:password@host:5432/presso)',
    }),
    databasePool: int('PRESSO_DATABASE_POOL', {
      default: 10,
      min: 1,
      max: 1000,
      doc: 'Scaled mode: PostgreSQL connections per process',
    }),
    redisUrl: optionalStr('PRESSO_REDIS_URL', {
      doc: 'Scaled mode: Redis URL (redis://host:6379/0) for the queue, rate limits and job events',
    }),
    redisPrefix: str('PRESSO_REDIS_PREFIX', {
      default: 'presso',
      doc: 'Scaled mode: prefix of every Redis key (several deployments can share one Redis)',
    }),
    queueLockMs: duration('PRESSO_QUEUE_LOCK', {
      default: 30_000,
      doc: 'Scaled mode: how long a worker’s claim on a job or webhook attempt lasts without renewal; a killed worker’s work runs elsewhere after this',
    }),
    s3Bucket: optionalStr('PRESSO_S3_BUCKET', {
      doc: 'Scaled mode: bucket for job inputs and temporary outputs',
    }),
    s3Prefix: str('PRESSO_S3_PREFIX', {
      default: '',
      doc: 'Scaled mode: key prefix inside the bucket (e.g. presso/)',
    }),
    s3Endpoint: optionalStr('PRESSO_S3_ENDPOINT', {
      doc: 'Scaled mode: S3-compatible endpoint URL (unset: AWS S3 in PRESSO_S3_REGION)',
    }),
    s3Region: str('PRESSO_S3_REGION', { default: 'us-east-1', doc: 'Scaled mode: the bucket’s region' }),
    s3AccessKeyId: optionalStr('PRESSO_S3_ACCESS_KEY_ID', {
      doc: 'Scaled mode: access key id (unset: the AWS SDK’s default chain: environment, profile, instance role)',
    }),
    s3SecretAccessKey: optionalStr('PRESSO_S3_SECRET_ACCESS_KEY', { doc: 'Scaled mode: secret access key' }),
    s3ForcePathStyle: bool('PRESSO_S3_FORCE_PATH_STYLE', {
      default: false,
      doc: 'Scaled mode: path-style bucket URLs (MinIO and most self-hosted S3 servers need it)',
    }),
    metricsPort: int('PRESSO_METRICS_PORT', {
      default: 0,
      min: 0,
      max: 65535,
      doc: 'Port of the plain-HTTP /metrics (Prometheus), /healthz and /livez listener, apart from the API (0: off; a worker process needs it for health checks)',
    }),
  },
  (v) => {
    if (v.mode === 'embedded') {
      if (v.role !== 'all') {
        throw new ConfigError(
          `PRESSO_ROLE=${v.role} needs PRESSO_MODE=scaled: the embedded mode is one process`,
        );
      }
      return { ...v, scaled: undefined };
    }
    const missing = (['PRESSO_DATABASE_URL', 'PRESSO_REDIS_URL', 'PRESSO_S3_BUCKET'] as const).filter(
      (name) =>
        ({ PRESSO_DATABASE_URL: v.databaseUrl, PRESSO_REDIS_URL: v.redisUrl, PRESSO_S3_BUCKET: v.s3Bucket })[
          name
        ] === undefined,
    );
    if (missing.length > 0) throw new ConfigError(`PRESSO_MODE=scaled needs ${missing.join(', ')}`);
    if ((v.s3AccessKeyId === undefined) !== (v.s3SecretAccessKey === undefined)) {
      throw new ConfigError(
        'PRESSO_S3_ACCESS_KEY_ID and PRESSO_S3_SECRET_ACCESS_KEY are set together or not at all',
      );
    }
    return {
      ...v,
      scaled: {
        databaseUrl: v.databaseUrl as string,
        redisUrl: v.redisUrl as string,
        bucket: v.s3Bucket as string,
      },
    };
  },
);

export type ScaledConfig = Loaded<typeof scaledConfig>;
