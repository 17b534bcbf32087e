/**
 * The settings the composition root hands processors (module.ts `HostSettings`), at their defaults: for tests
 * and benchmarks that build a processor alone. A test that proves an operator's setting reaches a kind builds
 * its own.
 */
import { DEFAULT_ARCHIVE_LIMITS } from '../../src/processors/archive/config.ts';
import { DEFAULT_IMAGE_LIMITS } from '../../src/processors/image/config.ts';
import type { HostSettings } from '../../src/processors/module.ts';

export const DEFAULT_SETTINGS: HostSettings = {
  archive: DEFAULT_ARCHIVE_LIMITS,
  images: { maxPixels: DEFAULT_IMAGE_LIMITS.maxPixels },
};
