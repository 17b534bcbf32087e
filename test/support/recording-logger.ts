/** A real pino logger whose lines are kept in memory, so tests can assert on what was logged. */
import pino, { type Logger } from 'pino';

export interface LoggedLine {
  level: 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'trace';
  msg: string;
  [field: string]: unknown;
}

export interface RecordingLogger {
  logger: Logger;
  lines: LoggedLine[];
  /** The messages logged, in order. */
  messages(): string[];
}

export function recordingLogger(): RecordingLogger {
  const lines: LoggedLine[] = [];
  const logger = pino(
    { level: 'debug', formatters: { level: (label) => ({ level: label }) } },
    { write: (line: string) => void lines.push(JSON.parse(line) as LoggedLine) },
  );
  return { logger, lines, messages: () => lines.map((line) => line.msg) };
}
