/**
 * The archive processor: ZIP, 7z, TAR (plain or gzip/bzip2/xz/zstd-compressed) and single-file gzip,
 * bzip2, xz and zstd streams. Every archive is listed and checked (safety.ts) before any byte is unpacked.
 * A TAR is never re-written unless members change: its stream is decompressed and compressed again harder,
 * so names, owners, times and order stay byte for byte; a ZIP is recompressed in place by advzip (one that
 * holds symbolic links is unpacked first, to check where they lead). Deep mode and conversions unpack, check
 * the unpacked tree against the listing (tree-check.ts), run each member through its own processor (deep.ts)
 * and pack again (pack.ts).
 */
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { UnprocessableInputError, ValidationError } from '../../errors/catalog.ts';
import type { FileKind } from '../../media/formats.ts';
import { ARCHIVE_FORMATS, type ArchiveFormat, formatName, parseFormat } from '../archive-tools/formats.ts';
import { checkPassword, listMembers, type Member, passwordError } from '../archive-tools/listing.ts';
import { compressStream, packFolder, recompressZip } from '../archive-tools/pack.ts';
import { checkMembers, type UnpackBudget } from '../archive-tools/safety.ts';
import type { UnpackedTree } from '../archive-tools/tree-check.ts';
import { decompressStream, extract, isTar } from '../archive-tools/unpack.ts';
import { typedProcessor } from '../module.ts';
import type { Processor, ProcessRequest, ProcessResult } from '../processor.ts';
import { Deadline } from '../shared/deadline.ts';
import { withOverrides } from '../shared/limits.ts';
import { type ToolRun, toolScope } from '../shared/run-tool.ts';
import { earnedTimeMs } from '../shared/time-budget.ts';
import { ARCHIVE_TIME_EARNED, type ArchiveLimits, archiveTimeMs, DEFAULT_ARCHIVE_LIMITS } from './config.ts';
import { type DeepReport, processMembers } from './deep.ts';
import { describeMembers } from './metadata.ts';
import { type ArchiveParams, archiveParams } from './params.ts';

export function createArchiveProcessor(
  processorFor: (kind: FileKind) => Processor | undefined,
  options: Partial<ArchiveLimits> = {},
): Processor {
  const limits = withOverrides(DEFAULT_ARCHIVE_LIMITS, options);
  return typedProcessor(archiveParams, {
    name: 'archive',
    kind: 'archive',
    // What content detection reports: a compressed TAR is detected as its compressor (`gz`), then opened.
    inputFormats: ['zip', '7z', 'tar', 'gz', 'bz2', 'xz', 'zst'],
    outputFormats: ARCHIVE_FORMATS,
    process: (request) => {
      // What the file earns by its size (shared/time-budget.ts), then by its listing too (see `open`).
      const earned = earnedTimeMs(limits, ARCHIVE_TIME_EARNED, { bytes: request.input.size });
      const deadline = new Deadline(earned, 'the archive');
      const budget = { remainingBytes: limits.maxUnpackedBytes };
      return processArchive(request, { limits, processorFor, deadline, budget, depth: 0 });
    },
  });
}

interface Context {
  limits: ArchiveLimits;
  processorFor: (kind: FileKind) => Processor | undefined;
  deadline: Deadline;
  budget: UnpackBudget;
  depth: number;
}

async function processArchive(request: ProcessRequest<ArchiveParams>, ctx: Context): Promise<ProcessResult> {
  request.signal.throwIfAborted();
  const { params } = request;
  const run: ToolRun = { deadline: ctx.deadline, signal: request.signal, ...toolScope(request) };
  const memoryBytes = ctx.limits.toolMemoryBytes;
  const opened = await open(request, params, run, ctx);
  const target = params.format === undefined ? opened.format : parseFormat(params.format);
  checkTarget(opened.format, target);
  const metadata = request.wantMetadata ? describeMembers(opened.members, request.input.size) : undefined;
  const pack = { level: params.compression, password: params.password, memoryBytes };
  const output = join(request.workDir, `output.${formatName(target)}`);
  let deep: DeepReport | undefined;

  const sameContainer = target.container === opened.format.container;
  if (!params.deep && sameContainer && opened.format.container !== '7z') {
    // Re-compress without unpacking: the TAR or the single stream as it is, or the ZIP in place.
    if (target.container === 'zip') {
      // A ZIP link's target is in its data: the links are unpacked and checked, the output stays in place.
      if (opened.members.some((m) => m.type === 'symlink')) await unpackTo(opened, request, params, run, ctx);
      await copyFile(opened.payload, output);
      if (!opened.members.some((m) => m.encrypted)) await recompressZip(output, run, pack);
    } else if (target.compressor === undefined) {
      await copyFile(opened.payload, output);
    } else {
      await compressStream(opened.payload, target.compressor, output, run, pack);
    }
  } else {
    const { folder, tree } = await unpackTo(opened, request, params, run, ctx);
    if (params.deep) deep = await deepen(folder, tree.files, request, params, ctx);
    if (target.container === 'stream') {
      await compressStream(join(folder, tree.files[0]!), target.compressor!, output, run, pack);
    } else {
      const container = join(request.workDir, `packed.${target.container}`);
      const names = tree.packNames;
      await packFolder(folder, names, target.container, target.compressor ? container : output, run, pack);
      if (target.compressor !== undefined)
        await compressStream(container, target.compressor, output, run, pack);
    }
  }
  const transformed = formatName(target) !== formatName(opened.format);
  const result = { format: formatName(target), transformed, metadata: withDeep(metadata, deep) };
  // Never larger: the same format comes back as the input when the repack did not gain.
  if (!transformed && (await stat(output)).size >= request.input.size)
    return { path: request.input.path, ...result };
  return { path: output, ...result };
}

interface Opened {
  format: ArchiveFormat;
  /** The container or stream content: the input, or its decompressed TAR or stream. */
  payload: string;
  members: Member[];
}

async function open(
  request: ProcessRequest<ArchiveParams>,
  params: ArchiveParams,
  run: ToolRun,
  ctx: Context,
): Promise<Opened> {
  const detected = parseFormat(request.input.format);
  const unpackOptions = { memoryBytes: ctx.limits.toolMemoryBytes, password: params.password };
  let payload = request.input.path;
  let format = detected;
  if (detected.compressor !== undefined) {
    payload = join(request.workDir, 'decompressed');
    await decompressStream(request.input.path, detected.compressor, payload, run, {
      ...unpackOptions,
      maxBytes: ctx.budget.remainingBytes,
    }).catch((error) => {
      throw /size limit/.test(String(error?.message)) ? bombError(ctx.limits) : error;
    });
    format = (await isTar(payload)) ? { container: 'tar', compressor: detected.compressor } : detected;
  }
  const { password } = params;
  const memoryBytes = ctx.limits.toolMemoryBytes;
  const container = format.container;
  const members =
    container === 'stream'
      ? [streamMember(request.input.name, (await stat(payload)).size)]
      : await listMembers(payload, container, run, { password, memoryBytes });
  await checkMembers(members, request.input.size, ctx.limits, ctx.budget);
  if (ctx.depth === 0) ctx.deadline.limitTo(archiveTimeMs(request.input.size, members, ctx.limits));
  if (members.some((m) => m.encrypted)) {
    if (password === undefined) throw passwordError(undefined);
    // Every path (re-pack in place, conversion, deep) must see a wrong password, even where nothing is unpacked.
    if (container !== 'stream') await checkPassword(payload, container, run, { password, memoryBytes });
  }
  return { format, payload, members };
}

function streamMember(name: string, size: number): Member {
  const stripped = basename(name).replace(/\.(gz|bz2|xz|zst|tgz|tbz2?|txz|tzst)$/i, '');
  const base = stripped === '' || stripped === '.' || stripped === '..' ? 'file' : stripped;
  return {
    path: base,
    bytes: Buffer.from(base).toString('latin1'),
    type: 'file',
    size,
    packedSize: undefined,
    offset: undefined,
    linkTarget: undefined,
    encrypted: false,
  };
}

/** Unpacks into `<workDir>/members` and checks what was written against the listing. */
async function unpackTo(
  opened: Opened,
  request: ProcessRequest<ArchiveParams>,
  params: ArchiveParams,
  run: ToolRun,
  ctx: Context,
): Promise<{ folder: string; tree: UnpackedTree }> {
  const folder = join(request.workDir, 'members');
  await mkdir(folder);
  if (opened.format.container === 'stream') {
    const name = opened.members[0]!.path;
    await copyFile(opened.payload, join(folder, name));
    return { folder, tree: { files: [name], packNames: [opened.members[0]!.bytes] } };
  }
  const tree = await extract(opened.payload, opened.format.container, folder, opened.members, run, {
    memoryBytes: ctx.limits.toolMemoryBytes,
    maxBytes: ctx.limits.maxUnpackedBytes,
    password: params.password,
  });
  request.signal.throwIfAborted();
  return { folder, tree };
}

async function deepen(
  folder: string,
  files: string[],
  request: ProcessRequest<ArchiveParams>,
  params: ArchiveParams,
  ctx: Context,
) {
  return processMembers(folder, files, {
    level: params.compression,
    processorFor: ctx.processorFor,
    maxMemberBytes: ctx.limits.deepMemberBytes,
    signal: request.signal,
    workDir: request.workDir,
    nested: async (nested) => {
      if (ctx.depth + 1 > ctx.limits.maxDepth) {
        throw new UnprocessableInputError(
          `The archive was refused: archives are nested more than ${ctx.limits.maxDepth} levels deep.`,
        );
      }
      const inner = {
        ...nested,
        params: { compression: params.compression, deep: true, format: undefined, password: undefined },
      };
      return processArchive(inner, { ...ctx, depth: ctx.depth + 1 });
    },
  });
}

function checkTarget(from: ArchiveFormat, to: ArchiveFormat): void {
  if (to.container === 'stream' && from.container !== 'stream') {
    throw ValidationError.field(
      'archive.format',
      `${formatName(to)} holds a single file; this ${formatName(from)} archive holds several.`,
    );
  }
}

function bombError(limits: ArchiveLimits): UnprocessableInputError {
  return new UnprocessableInputError(
    `The archive was refused before unpacking: it decompresses to more than the limit of ${limits.maxUnpackedBytes} bytes.`,
  );
}

function withDeep(metadata: Record<string, unknown> | undefined, deep: DeepReport | undefined) {
  if (metadata === undefined || deep === undefined) return metadata;
  return { ...metadata, deep };
}
