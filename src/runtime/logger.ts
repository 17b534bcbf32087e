/**
 * Structured JSON logs. Credentials never reach them: header maps are redacted whole (a request's own, with its
 * Authorization and Cookie, and a fetch's, which are the caller's credentials for the source), and so are
 * passwords at any depth a job or its parameters put them, and the secrets a request keeps apart
 * (jobs/job-secrets.ts).
 */
import pino, { type Logger } from 'pino';

const REDACTED = [
  'headers',
  '*.headers',
  '*.*.headers',
  'secrets',
  '*.secrets',
  'password',
  '*.password',
  '*.*.password',
  '*.*.*.password',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'presso' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED, censor: '[redacted]' },
    },
    destination,
  );
}

/**
 * The logger of the CLI's one-shot commands (`account`, `connector`): their standard output is the command's
 * JSON for scripts, so their logs go to standard error, synchronously (the command exits right after), and
 * only at `warn` or above unless the configured level is stricter (`silent`: nothing).
 */
export function createCliLogger(configured: string): Logger {
  const warn = pino.levels.values.warn ?? 40;
  const wanted =
    configured === 'silent' ? Number.POSITIVE_INFINITY : (pino.levels.values[configured] ?? warn);
  return createLogger(wanted > warn ? configured : 'warn', pino.destination({ dest: 2, sync: true }));
}
