/**
 * The bundle processor: a website as a ZIP whose root (or single top folder) holds index.html. It is listed
 * and checked like any archive (../archive-tools/safety.ts: bombs, escapes, links, devices) before it is unpacked,
 * and the unpacked tree is checked against the listing (../archive-tools/tree-check.ts: a symbolic link that leads
 * out of the site is refused) before any file is read; its images go through the image processor and its
 * pages, style sheets, scripts and JSON are minified (site-files.ts; links inside the site are kept as links,
 * never followed), and it is packed again as a ZIP with the archive processor's strongest deflate.
 */
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { listMembers } from '../archive-tools/listing.ts';
import { packFolder } from '../archive-tools/pack.ts';
import { checkMembers } from '../archive-tools/safety.ts';
import { extract } from '../archive-tools/unpack.ts';
import type { HostSettings } from '../module.ts';
import { typedProcessor } from '../module.ts';
import type { Processor, ProcessRequest, ProcessResult } from '../processor.ts';
import { Deadline } from '../shared/deadline.ts';
import { withOverrides } from '../shared/limits.ts';
import { type ToolRun, toolScope } from '../shared/run-tool.ts';
import { earnedTimeMs } from '../shared/time-budget.ts';
import { BUNDLE_TIME_EARNED, type BundleLimits, DEFAULT_BUNDLE_LIMITS } from './config.ts';
import { type BundleParams, bundleParams } from './params.ts';
import { optimiseSite } from './site-files.ts';

/**
 * `settings.archive`: the operator's `PRESSO_ARCHIVE_*` caps (ratio, tool memory), which bundles are unpacked
 * under like any archive; its member and size caps are the bundle's own, tighter ones.
 */
export function createBundleProcessor(
  images: Processor,
  options: Partial<BundleLimits>,
  settings: Pick<HostSettings, 'archive'>,
): Processor {
  const limits = withOverrides(DEFAULT_BUNDLE_LIMITS, options);
  return typedProcessor(bundleParams, {
    name: 'bundle',
    kind: 'bundle',
    inputFormats: ['bundle'],
    outputFormats: ['bundle'],
    process: (request) => processBundle(request, images, limits, settings.archive),
  });
}

async function processBundle(
  request: ProcessRequest<BundleParams>,
  images: Processor,
  limits: BundleLimits,
  archive: HostSettings['archive'],
): Promise<ProcessResult> {
  request.signal.throwIfAborted();
  const { params } = request;
  const run: ToolRun = {
    // What the file earns by its size (shared/time-budget.ts).
    deadline: new Deadline(
      earnedTimeMs(limits, BUNDLE_TIME_EARNED, { bytes: request.input.size }),
      'the website bundle',
    ),
    signal: request.signal,
    ...toolScope(request),
  };
  const memoryBytes = archive.toolMemoryBytes;
  const members = await listMembers(request.input.path, 'zip', run, { password: undefined, memoryBytes });
  const archiveLimits = {
    maxRatio: archive.maxRatio,
    maxMembers: limits.maxFiles,
    maxUnpackedBytes: limits.maxUnpackedBytes,
  };
  await checkMembers(members, request.input.size, archiveLimits, { remainingBytes: limits.maxUnpackedBytes });
  const folder = join(request.workDir, 'site');
  await mkdir(folder);
  const tree = await extract(request.input.path, 'zip', folder, members, run, {
    memoryBytes,
    maxBytes: limits.maxUnpackedBytes,
    password: undefined,
  });
  const root = await siteRoot(folder);
  const files = siteFiles(tree.files, relative(folder, root));
  const report = await optimiseSite({
    root,
    files,
    params,
    images,
    signal: request.signal,
    workDir: request.workDir,
    maxTextBytes: limits.maxTextBytes,
  });
  const output = join(request.workDir, 'output.zip');
  // A ZIP is packed from the folder's top-level entries (7-Zip walks them): no member list needed.
  await packFolder(folder, [], 'zip', output, run, {
    level: params.compression,
    password: undefined,
    memoryBytes,
  });
  const metadata = request.wantMetadata ? { files: files.length, ...report } : undefined;
  // Images converted on request change what the site holds, like a format change: no never-larger rule then.
  const transformed = params.imageFormat !== 'keep';
  if (!transformed && (await stat(output)).size >= request.input.size) {
    return { path: request.input.path, format: 'bundle', transformed, metadata };
  }
  return { path: output, format: 'bundle', transformed, metadata };
}

/** The folder holding index.html: the unpacked root, or its single top-level folder. */
async function siteRoot(folder: string): Promise<string> {
  const top = await readdir(folder, { withFileTypes: true });
  if (top.some((entry) => entry.isFile() && entry.name.toLowerCase() === 'index.html')) return folder;
  const only = top.length === 1 && top[0]!.isDirectory() ? join(folder, top[0]!.name) : undefined;
  return only ?? folder;
}

/**
 * The regular files under the site's root (`prefix` from the unpacked folder), relative to it and sorted: the
 * checked tree's, so symbolic links are neither followed nor optimised (a recursive readdir follows links to
 * folders, and would loop on one that points to its own parent).
 */
function siteFiles(files: string[], prefix: string): string[] {
  if (prefix === '') return [...files].sort();
  return files
    .filter((file) => file.startsWith(`${prefix}/`))
    .map((file) => file.slice(prefix.length + 1))
    .sort();
}
