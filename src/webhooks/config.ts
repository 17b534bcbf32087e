/** Webhook deliveries: the time-out of one attempt and the delays between retries. */
import { duration, durationList, type Loaded, section } from '../config/env.ts';

export const webhooksConfig = section({
  timeoutMs: duration('PRESSO_WEBHOOK_TIMEOUT', {
    default: 10_000,
    doc: 'Time-out of one webhook delivery attempt',
  }),
  retrySchedule: durationList('PRESSO_WEBHOOK_RETRY_SCHEDULE', {
    default: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
    doc: 'Delays between webhook retries (about 24 h in all)',
  }),
  secretGraceMs: duration('PRESSO_WEBHOOK_SECRET_GRACE', {
    default: 86_400_000,
    doc: 'After a webhook secret rotation, deliveries are signed with the previous secret too for this long',
  }),
  claimTimeoutMs: duration('PRESSO_WEBHOOK_CLAIM_TIMEOUT', {
    default: 600_000,
    doc: 'Scaled mode: a delivery left sending for longer than this lost its process and its queued attempt (one attempt takes seconds); the next reconciliation queues it again',
  }),
});

export type WebhooksConfig = Loaded<typeof webhooksConfig>;
