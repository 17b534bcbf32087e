/** Local storage health: the free space readiness needs, and how long work stopped by a full disk waits. */
import { bytes, duration, type Loaded, section } from '../config/env.ts';

export const storageConfig = section({
  minFreeBytes: bytes('PRESSO_MIN_FREE_DISK', {
    default: 512 * 1024 * 1024,
    doc: 'Free space on the data directory below which /healthz answers 503 low-disk (readiness)',
  }),
  retryMs: duration('PRESSO_STORAGE_RETRY', {
    default: 10_000,
    doc: 'How long a job stopped by a full disk or database waits before it runs again',
  }),
});

export type StorageConfig = Loaded<typeof storageConfig>;
