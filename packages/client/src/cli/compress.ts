/**
 * `presso-client compress`: a folder's files through the API, N at a time. Each file is hashed, skipped if
 * the manifest shows it done with the same input (--resume), uploaded (progress in bytes sent), waited
 * on when the server answers 202 (progress from the job), then downloaded beside its siblings under
 * --out (or over the input with --in-place: same name when the format is unchanged), checked against the
 * output's SHA-1, and recorded in the manifest at once. An abort (Ctrl-C) stops new files, cancels those in flight and keeps what is done.
 */
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { isAcknowledgement } from '../client.ts';
import type { NodePressoClient } from '../node.ts';
import type { CompletedJob, Params } from '../types.ts';
import { collectInputs, type Filters, type Input, Manifest, type ManifestEntry, sha1File } from './files.ts';
import type { FileOutcome, Reporter, Summary } from './progress.ts';

export interface BatchOptions {
  targets: string[];
  filters: Filters;
  params: Params;
  /** Output folder; the manifest lives there. */
  out?: string;
  inPlace: boolean;
  concurrency: number;
  resume: boolean;
  reporter: Reporter;
  signal: AbortSignal;
}

function manifestFolder(options: BatchOptions): string {
  if (options.out) return resolve(options.out);
  return resolve(options.targets[0] ?? '.');
}

/** A file's own params: a store path is a folder prefix, so outputs keep their relative place. */
function fileParams(params: Params, input: Input): Params {
  const store = params.store as { path?: string } | undefined;
  if (!store) return params;
  const prefix = store.path ? store.path.replace(/\/?$/, '/') : '';
  const folder = posix.dirname(input.relative);
  return {
    ...params,
    store: { ...params.store!, path: folder === '.' ? prefix || undefined : `${prefix}${folder}/` },
  } as Params;
}

export async function runBatch(client: NodePressoClient, options: BatchOptions): Promise<Summary> {
  const folder = manifestFolder(options);
  await mkdir(folder, { recursive: true });
  const inputs = await collectInputs(options.targets, options.filters, options.out ? folder : undefined);
  const manifest = await Manifest.open(folder);
  const { reporter, signal } = options;
  const summary: Summary = {
    files: inputs.length,
    done: 0,
    skipped: 0,
    failed: [],
    bytesIn: 0,
    bytesOut: 0,
    interrupted: false,
  };
  reporter.start({ files: inputs.length, bytes: inputs.reduce((sum, input) => sum + input.size, 0) });

  const one = async (input: Input) => {
    reporter.progress(input, 'hashing', 0);
    const inputSha1 = await sha1File(input.path);
    const key = options.inPlace ? relative(folder, input.path).split('\\').join('/') : input.relative;
    const previous = options.resume ? await manifest.done(key, inputSha1, folder) : undefined;
    // In place, a done file's "input" is now the output itself.
    const inPlaceDone = options.resume && options.inPlace && manifest.entries[key]?.outputSha1 === inputSha1;
    if (previous || inPlaceDone) {
      const entry = (previous ?? manifest.entries[key])!;
      summary.skipped++;
      summary.bytesIn += entry.bytesIn;
      summary.bytesOut += entry.bytesOut;
      reporter.skipped(input, outcomeOf(entry));
      return;
    }
    const submitted = await client.uploadPath(input.path, fileParams(options.params, input), {
      signal,
      onUploadProgress: (sent) => reporter.progress(input, 'uploading', input.size ? sent / input.size : 1),
    });
    reporter.progress(input, 'processing', 0);
    const result: CompletedJob = isAcknowledgement(submitted)
      ? await client.wait(submitted, {
          signal,
          onProgress: (record) => reporter.progress(input, 'processing', (record.progress ?? 0) / 100),
        })
      : { ...submitted, status: 'completed' };
    let output: string | undefined;
    if (!options.params.store) {
      reporter.progress(input, 'downloading', 0);
      const target = options.inPlace
        ? inPlaceTarget(input.path, result)
        : join(folder, dirname(input.relative), result.output.name);
      await mkdir(dirname(target), { recursive: true });
      await client.download(result, target, { signal });
      if (options.inPlace && resolve(target) !== resolve(input.path)) await rm(input.path);
      output = relative(folder, target).split('\\').join('/');
    }
    const entry: ManifestEntry = {
      inputSha1,
      ...(output === undefined ? {} : { output }),
      outputSha1: result.output.sha1,
      url: result.url,
      bytesIn: input.size,
      bytesOut: result.output.size,
    };
    await manifest.record(key, entry);
    summary.done++;
    summary.bytesIn += input.size;
    summary.bytesOut += result.output.size;
    reporter.done(input, outcomeOf(entry));
  };

  let next = 0;
  const worker = async () => {
    while (next < inputs.length && !signal.aborted) {
      const input = inputs[next++]!;
      try {
        await one(input);
      } catch (error) {
        if (signal.aborted) break;
        const message = error instanceof Error ? error.message : String(error);
        summary.failed.push({ file: input.relative, message });
        reporter.failed(input, message);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  summary.interrupted = signal.aborted;
  reporter.finish(summary);
  return summary;
}

/**
 * In place, a file of unchanged format keeps its own name (photo.jpg stays photo.jpg, though the server
 * names JPEG outputs .jpeg); a new format takes the output's name beside it, and the input goes.
 */
function inPlaceTarget(inputPath: string, result: CompletedJob): string {
  if (result.input.format === result.output.format) return inputPath;
  return join(dirname(inputPath), result.output.name);
}

function outcomeOf(entry: ManifestEntry): FileOutcome {
  return {
    bytesOut: entry.bytesOut,
    url: entry.url,
    ...(entry.output === undefined ? {} : { output: entry.output }),
  };
}
