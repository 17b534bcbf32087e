/**
 * Deep mode: each unpacked member goes through the processor of its kind at the archive's level. A result
 * replaces the member only when it is smaller and in the same format, and the member keeps its time and
 * permissions, so whatever no processor improves stays byte-identical. Archives inside archives are opened
 * by the caller's `nested` (the archive processor itself, one level deeper). Only the regular files of the
 * checked tree (tree-check.ts) are visited, each checked again with lstat: no link is ever followed.
 */
import { copyFile, lstat, mkdir, stat, utimes } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { detectFile } from '../../media/detect.ts';
import type { FileKind } from '../../media/formats.ts';
import type { ArchiveLevel } from '../archive-tools/formats.ts';
import type { DetectedInput, Processor, ProcessRequest } from '../processor.ts';

export interface DeepOptions {
  level: ArchiveLevel;
  /** The processor of a member's kind, if the server runs one (the archive kind is handled by `nested`). */
  processorFor: (kind: FileKind) => Processor | undefined;
  nested: (request: ProcessRequest) => Promise<{ path: string; format: string }>;
  maxMemberBytes: number;
  signal: AbortSignal;
  workDir: string;
}

export interface DeepReport {
  processed: number;
  improved: number;
  savedBytes: number;
  /** Members whose processor failed on them: kept as they are. */
  failed: number;
}

/** A nested archive refused as a bomb, an escape or too deep ends the whole archive. */
function isRefusal(error: unknown): boolean {
  return error instanceof Error && /refused (before|after) unpacking|nested more than/.test(error.message);
}

/** Kinds deep mode passes on; bundles are websites, not members to optimise one by one. */
const MEMBER_KINDS: readonly FileKind[] = ['image', 'pdf', 'document', 'audio', 'video', 'archive'];

/** `files`: the regular files of the unpacked tree, relative to `folder`. */
export async function processMembers(
  folder: string,
  files: string[],
  options: DeepOptions,
): Promise<DeepReport> {
  const report: DeepReport = { processed: 0, improved: 0, savedBytes: 0, failed: 0 };
  let index = 0;
  for (const file of files) {
    options.signal.throwIfAborted();
    const path = join(folder, file);
    const before = await lstat(path).catch(() => undefined);
    if (before === undefined || !before.isFile() || before.size === 0 || before.size > options.maxMemberBytes)
      continue;
    const sniffed = await detectFile(path);
    if (sniffed === undefined || !MEMBER_KINDS.includes(sniffed.kind)) continue;
    let detected: DetectedInput = { ...sniffed, path, name: basename(file), size: before.size };
    let processor = detected.kind === 'archive' ? undefined : options.processorFor(detected.kind);
    if (detected.kind !== 'archive' && processor === undefined) continue;
    const workDir = join(options.workDir, `member-${index++}`);
    await mkdir(workDir);
    // An audio-only MP4 is sniffed as video: the processor looks inside and names its real kind.
    if (processor?.refineInput !== undefined) {
      detected = await processor
        .refineInput(detected, { workDir, signal: options.signal })
        .catch(() => detected);
      processor = options.processorFor(detected.kind);
      if (processor === undefined) continue;
    }
    const request: ProcessRequest = {
      input: detected,
      params: { compression: options.level },
      workDir,
      signal: options.signal,
      wantMetadata: false,
    };
    let result: { path: string; format: string };
    try {
      result = processor === undefined ? await options.nested(request) : await processor.process(request);
    } catch (error) {
      // A member its processor cannot read (corrupt, unsupported variant) stays as it is; only the request's
      // own cancellation and a refused nested archive (a bomb) end the whole archive.
      if (options.signal.aborted || (processor === undefined && isRefusal(error))) throw error;
      report.failed++;
      continue;
    }
    report.processed++;
    if (result.path === path || result.format !== detected.format) continue;
    const after = (await stat(result.path)).size;
    if (after >= before.size) continue;
    await copyFile(result.path, path);
    await utimes(path, before.atime, before.mtime);
    report.improved++;
    report.savedBytes += before.size - after;
  }
  return report;
}
