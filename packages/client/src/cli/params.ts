/** The processing parameters a CLI invocation asks for: shorthand flags over `--data JSON`. */
import type { Params } from '../types.ts';

export interface ParamFlags {
  compression?: string;
  format?: string;
  resize?: string;
  data?: string;
  store?: string;
  /** The store's region (S3 stores need one), with --store. */
  region?: string;
}

const KINDS_WITH_COMPRESSION = ['image', 'pdf', 'document', 'video', 'audio', 'archive'] as const;
/** `800x600`, `800x`, `x600`, optionally `:mode` (fit, auto, exact, pad). */
const RESIZE = /^(\d{1,5})?x(\d{1,5})?(?::(fit|auto|exact|pad))?$/;
/** `CONNECTOR:BUCKET[/PATH]` */
const STORE = /^([^:/]+):([^/]+)(?:\/(.*))?$/;

export class UsageError extends Error {}

export function buildParams(flags: ParamFlags): Params {
  let params: Record<string, Record<string, unknown>> = {};
  if (flags.data) {
    try {
      params = JSON.parse(flags.data) as typeof params;
    } catch {
      throw new UsageError('--data must be a JSON object.');
    }
    if (typeof params !== 'object' || params === null || Array.isArray(params))
      throw new UsageError('--data must be a JSON object.');
  }
  const kind = (name: string) => {
    params[name] = { ...params[name] };
    return params[name]!;
  };
  // A level applies to every kind of file a folder may hold; format and size are image notions.
  if (flags.compression)
    for (const name of KINDS_WITH_COMPRESSION) kind(name).compression = flags.compression;
  if (flags.format) kind('image').format = flags.format;
  if (flags.resize) {
    const match = RESIZE.exec(flags.resize);
    if (!match || (!match[1] && !match[2]))
      throw new UsageError('--resize is WIDTHxHEIGHT[:fit|auto|exact|pad].');
    kind('image').resize = {
      ...(match[1] ? { width: Number(match[1]) } : {}),
      ...(match[2] ? { height: Number(match[2]) } : {}),
      ...(match[3] ? { mode: match[3] } : {}),
    };
  }
  if (flags.store) {
    const match = STORE.exec(flags.store);
    if (!match) throw new UsageError('--store is CONNECTOR:BUCKET[/PATH].');
    // Over --data's store (its other fields, such as acl or metadata, are kept).
    params.store = {
      ...params.store,
      id: match[1]!,
      bucket: match[2]!,
      ...(match[3] ? { path: match[3] } : {}),
      ...(flags.region ? { region: flags.region } : {}),
    };
  }
  return params as Params;
}
