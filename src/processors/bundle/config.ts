/** The bundle processor's limits: the `PRESSO_BUNDLE_*` variables, their defaults and the typed value. */
import { bytes, duration, int, type Loaded, section } from '../../config/env.ts';
import { type EarnedTime, timeFloor } from '../shared/time-budget.ts';

/** What a website bundle earns on top of its floor (shared/time-budget.ts): 60 s per MiB. */
export const BUNDLE_TIME_EARNED: EarnedTime = { msPerMiB: 60_000, msPerUnit: 0 };

export const bundleConfig = section({
  timeBudgetMs: duration('PRESSO_BUNDLE_TIME_BUDGET', {
    default: 600_000,
    doc:
      'Most time one website bundle may take (its images included; what it gets is earned from ' +
      'PRESSO_BUNDLE_TIME_FLOOR up) before it is refused',
  }),
  timeFloorMs: timeFloor('BUNDLE', 'website bundle', 60_000, 'each MiB'),
  maxFiles: int('PRESSO_BUNDLE_MAX_FILES', {
    default: 20_000,
    min: 1,
    doc: 'Most files accepted in a website bundle',
  }),
  maxUnpackedBytes: bytes('PRESSO_BUNDLE_MAX_UNPACKED', {
    default: 2 * 1024 ** 3,
    doc: 'Largest total size a website bundle may unpack to',
  }),
  maxTextBytes: bytes('PRESSO_BUNDLE_MAX_TEXT', {
    default: 16 * 1024 ** 2,
    doc: 'Largest HTML, CSS, JavaScript or JSON file minified; larger ones are kept as they are',
  }),
});

export type BundleLimits = Loaded<typeof bundleConfig>;

export const DEFAULT_BUNDLE_LIMITS: BundleLimits = bundleConfig.load({});
