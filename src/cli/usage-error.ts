/**
 * A wrong command line: the message is printed and the process exits with status 2 (the shell's
 * convention for misuse). Not an HTTP error, so it is not part of the service's error catalog.
 */
export class UsageError extends Error {
  readonly exitCode = 2;

  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
