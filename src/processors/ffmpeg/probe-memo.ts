/**
 * One ffprobe per file and job where two steps need it: the video processor's `refineInput` probes an MP4
 * or WebM to learn whether it holds a moving picture, and its `process` needs the same facts right after.
 * Each ffprobe start costs about 0.07 CPU-s in dynamic loading alone (Debian's ffmpeg links over 200
 * libraries), more than the probe itself on a short clip.
 *
 * A probe is kept under the file's identity (path, device, inode, size, change time), so a file replaced
 * or rewritten in between is probed again; it is handed out once (`take`), and the oldest entries go when a
 * refined file never reached `process` (a job cancelled, an audio file handed to the audio processor).
 */
import { stat } from 'node:fs/promises';
import type { MediaRun } from './decode-bounds.ts';
import { type MediaProbe, probeMedia } from './probe.ts';

/** Jobs between `refineInput` and `process` at once, with room to spare: each entry is a few hundred bytes. */
const KEPT = 64;

export class ProbeMemo {
  readonly #kept = new Map<string, MediaProbe>();
  readonly #limit: number;

  /** `limit`: how many probes are kept at most. */
  constructor(limit = KEPT) {
    this.#limit = limit;
  }

  /** Probes the file and keeps the answer for one later `take` of the same, unchanged file. */
  async probe(path: string, format: string, run: MediaRun): Promise<MediaProbe> {
    const probe = await probeMedia(path, format, run);
    const key = await identity(path, format);
    this.#kept.delete(key);
    this.#kept.set(key, probe);
    for (const oldest of this.#kept.keys()) {
      if (this.#kept.size <= this.#limit) break;
      this.#kept.delete(oldest);
    }
    return probe;
  }

  /** The kept probe of this very file (then forgotten), or a new one. */
  async take(path: string, format: string, run: MediaRun): Promise<MediaProbe> {
    const key = await identity(path, format);
    const kept = this.#kept.get(key);
    if (kept === undefined) return probeMedia(path, format, run);
    this.#kept.delete(key);
    return kept;
  }
}

async function identity(path: string, format: string): Promise<string> {
  const s = await stat(path, { bigint: true });
  return [path, format, s.dev, s.ino, s.size, s.ctimeNs, s.mtimeNs].join('\0');
}
