/**
 * The archive processor's limits, declared once: the typed value (`ArchiveLimits`), its defaults and the
 * `PRESSO_ARCHIVE_*` variables that set them. The caps are checked on the listing, before anything is
 * unpacked, and enforced again while unpacking (each tool runs with a file-size limit).
 */
import { bytes, duration, int, type Loaded, section } from '../../config/env.ts';
import { type EarnedTime, earnedTimeMs, timeFloor } from '../shared/time-budget.ts';

/**
 * What an archive earns on top of its floor (shared/time-budget.ts): 60 s per MiB, or 30 s per unit of its
 * listing (an unpacked MiB, or ten members), whichever is less. A 500-byte ZIP earns nothing beyond the floor.
 */
export const ARCHIVE_TIME_EARNED: EarnedTime = { msPerMiB: 60_000, msPerUnit: 30_000 };

/** The time an archive earns once its listing is known: by its size, and its unpacked MiB and members. */
export function archiveTimeMs(
  bytes: number,
  members: readonly { size: number }[],
  limits: { timeFloorMs: number; timeBudgetMs: number },
): number {
  const unpacked = members.reduce((sum, member) => sum + member.size, 0);
  const units = unpacked / 1024 ** 2 + members.length / 10;
  return earnedTimeMs(limits, ARCHIVE_TIME_EARNED, { bytes, units });
}

export const archiveConfig = section({
  timeBudgetMs: duration('PRESSO_ARCHIVE_TIME_BUDGET', {
    default: 600_000,
    doc:
      'Most time one archive may take to process (members processed in deep mode included; what it gets is ' +
      'earned from PRESSO_ARCHIVE_TIME_FLOOR up) before it is refused',
  }),
  timeFloorMs: timeFloor('ARCHIVE', 'archive', 30_000, 'each MiB, each MiB unpacked and each ten members'),
  maxMembers: int('PRESSO_ARCHIVE_MAX_MEMBERS', {
    default: 50_000,
    min: 1,
    doc: 'Most members (files, folders, links) accepted in an archive',
  }),
  maxUnpackedBytes: bytes('PRESSO_ARCHIVE_MAX_UNPACKED', {
    default: 4 * 1024 ** 3,
    doc: 'Largest total size an archive may unpack to (archive-bomb guard)',
  }),
  maxRatio: int('PRESSO_ARCHIVE_MAX_RATIO', {
    default: 200,
    min: 1,
    doc:
      'Largest ratio of unpacked to packed size accepted (zip bombs reach thousands; text tarballs 5-20), ' +
      'for archives whose unpacked size is over 64 MiB',
  }),
  maxDepth: int('PRESSO_ARCHIVE_MAX_DEPTH', {
    default: 2,
    min: 0,
    max: 8,
    doc: 'Most levels of archives inside archives that deep mode opens (42.zip-style nesting is refused past it)',
  }),
  deepMemberBytes: bytes('PRESSO_ARCHIVE_DEEP_MEMBER_MAX', {
    default: 256 * 1024 ** 2,
    doc: 'Largest member deep mode passes to its processor; larger members are kept as they are',
  }),
  toolMemoryBytes: bytes('PRESSO_ARCHIVE_TOOL_MEMORY', {
    default: 2 * 1024 ** 3,
    doc: 'Memory each archiving tool run (7-Zip, xz, zstd, bsdtar) may allocate',
  }),
});

export type ArchiveLimits = Loaded<typeof archiveConfig>;

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = archiveConfig.load({});
