/** Structured JSON logs. Credentials never reach them: auth and cookie headers are redacted. */
import pino, { type Logger } from 'pino';

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'presso' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["proxy-authorization"]'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
