/** Dashboard sessions: how long they last idle and at most, and how many sign-in attempts a window allows. */
import { duration, int, type Loaded, section } from '../config/env.ts';
import { ConfigError } from '../errors/catalog.ts';

export const sessionsConfig = section(
  {
    idleMs: duration('PRESSO_SESSION_IDLE', {
      default: 2 * 3_600_000,
      doc: 'A dashboard session unused this long is signed out',
    }),
    maxAgeMs: duration('PRESSO_SESSION_MAX_AGE', {
      default: 7 * 86_400_000,
      doc: 'A dashboard session ends this long after sign-in, however active',
    }),
    signInLimitPerEmail: int('PRESSO_SIGNIN_LIMIT', {
      default: 10,
      min: 1,
      doc: 'Sign-in attempts per email address per rate-limit window (PRESSO_RATE_WINDOW); more are answered 429',
    }),
    signInLimitPerAddress: int('PRESSO_SIGNIN_ADDRESS_LIMIT', {
      default: 50,
      min: 1,
      doc: 'Sign-in attempts per client address per rate-limit window; more are answered 429',
    }),
  },
  (v) => {
    if (v.idleMs < 60_000) throw new ConfigError('PRESSO_SESSION_IDLE must be at least 1m');
    if (v.maxAgeMs < v.idleMs)
      throw new ConfigError('PRESSO_SESSION_MAX_AGE must be at least PRESSO_SESSION_IDLE');
    return v;
  },
);

export type SessionsConfig = Loaded<typeof sessionsConfig>;
