/** Rate limiting: the default limit of new accounts and the rolling window it counts over. */
import { duration, int, type Loaded, section } from '../config/env.ts';

export const rateLimitConfig = section({
  defaultLimit: int('PRESSO_RATE_LIMIT', {
    default: 100_000,
    min: 1,
    doc: 'Default requests per window for new accounts',
  }),
  windowMs: duration('PRESSO_RATE_WINDOW', { default: 900_000, doc: 'Rolling rate-limit window' }),
});

export type RateLimitConfig = Loaded<typeof rateLimitConfig>;
