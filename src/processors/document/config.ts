/**
 * The document processor's limits, declared once: the typed value (`DocumentLimits`), its defaults and
 * the `PRESSO_DOCUMENT_*` variables that set them.
 */
import { bool, bytes, duration, int, type Loaded, section } from '../../config/env.ts';
import { type EarnedTime, timeFloor } from '../shared/time-budget.ts';

/**
 * What an office document earns on top of its floor (shared/time-budget.ts): 60 s per MiB. Its pages are
 * known only once LibreOffice has laid it out, so its size alone counts; the floor covers LibreOffice's start.
 */
export const DOCUMENT_TIME_EARNED: EarnedTime = { msPerMiB: 60_000, msPerUnit: 0 };

export const documentConfig = section({
  timeBudgetMs: duration('PRESSO_DOCUMENT_TIME_BUDGET', {
    default: 180_000,
    doc:
      'Most time one office document may take to process (LibreOffice runs included; what it gets is earned ' +
      'from PRESSO_DOCUMENT_TIME_FLOOR up) before it is refused',
  }),
  timeFloorMs: timeFloor('DOCUMENT', 'office document', 90_000, 'each MiB'),
  maxParts: int('PRESSO_DOCUMENT_MAX_PARTS', {
    default: 10_000,
    min: 1,
    doc: 'Most parts (ZIP entries) accepted in an office document',
  }),
  maxUnpackedBytes: bytes('PRESSO_DOCUMENT_MAX_UNPACKED', {
    default: 1024 ** 3,
    doc: 'Largest total size an office document may unpack to (zip-bomb guard)',
  }),
  /** LibreOffice keeps a whole document and its layout in memory; 217 MB RSS was measured for 2 pages. */
  toolMemoryBytes: bytes('PRESSO_DOCUMENT_TOOL_MEMORY', {
    default: 2 * 1024 ** 3,
    doc: 'Memory each LibreOffice run may allocate',
  }),
  verify: bool('PRESSO_DOCUMENT_VERIFY', {
    default: true,
    doc: 'Re-open every re-packed document in LibreOffice and keep it only with the same page count',
  }),
});

export type DocumentLimits = Loaded<typeof documentConfig>;

export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = documentConfig.load({});
