/**
 * The document processor's limits, declared once: the typed value (`DocumentLimits`), its defaults and
 * the `PRESSO_DOCUMENT_*` variables that set them.
 */
import { bool, bytes, duration, int, type Loaded, section } from '../../config/env.ts';

export const documentConfig = section({
  timeBudgetMs: duration('PRESSO_DOCUMENT_TIME_BUDGET', {
    default: 180_000,
    doc: 'Time one office document may take to process (LibreOffice runs included) before it is refused',
  }),
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
