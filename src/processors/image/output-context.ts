/**
 * What every output encoder shares: the job's output context, the candidate it produces, which formats
 * can animate or hold alpha, the sharp pipeline for a format, and the job's deadline race and tool run.
 */
import { formatInfo } from '../../media/formats.ts';
import type { ProcessRequest } from '../processor.ts';
import type { Deadline } from '../shared/deadline.ts';
import { type ToolRun, toolScope } from '../shared/run-tool.ts';
import type { BudgetRace } from '../shared/within-budget.ts';
import type { ImageLimits } from './config.ts';
import { canAnimate, canHoldAlpha } from './encoders.ts';
import type { OutputFormat, RasterFormat, ResolvedImageParams } from './params.ts';
import { buildPipeline, type PipelineOptions } from './pipeline.ts';
import { toInputError } from './pipeline-errors.ts';
import type { ImageSource } from './source.ts';

export interface OutputContext {
  request: ProcessRequest<ResolvedImageParams>;
  params: ResolvedImageParams;
  source: ImageSource;
  limits: ImageLimits;
  deadline: Deadline;
  /** Encodes given up at the deadline or on abort that are still running (they hold memory until done). */
  abandoned: Promise<unknown>[];
}

export interface Candidate {
  path: string;
  format: OutputFormat;
  size: number;
}

export const SHARP_FORMATS: readonly string[] = ['jpeg', 'png', 'webp', 'avif', 'gif', 'tiff'];
export const isRaster = (format: OutputFormat): format is RasterFormat => SHARP_FORMATS.includes(format);

export function formatCanAnimate(format: OutputFormat): boolean {
  return isRaster(format) ? canAnimate(format) : false;
}

export function formatCanHoldAlpha(format: OutputFormat): boolean {
  return isRaster(format) ? canHoldAlpha(format) : true;
}

export function hasGeometry(params: ResolvedImageParams): boolean {
  return (
    params.crop !== undefined ||
    params.rotate !== 0 ||
    params.flip ||
    params.flop ||
    params.resize !== undefined
  );
}

export function pipelineFor(ctx: OutputContext, format: OutputFormat) {
  return buildPipeline(ctx.source, pipelineOptionsFor(ctx, format));
}

/** What `pipelineFor` builds the pipeline of `format` from (the encoder's child builds the same). */
export function pipelineOptionsFor(ctx: OutputContext, format: OutputFormat): PipelineOptions {
  return {
    limits: ctx.limits,
    deadline: ctx.deadline,
    // Formats without animation get the first frame only.
    animated: formatCanAnimate(format),
    geometry: ctx.params,
    level: ctx.params.compression,
    metadata: ctx.params.metadata,
    alphaOutput: formatCanHoldAlpha(format),
    deepOutput: format === 'png' || format === 'tiff' || format === 'jxl',
  };
}

/**
 * sharp's `timeout()` stops libvips between evaluation steps, but some encoders (AVIF, WebP) compress in
 * one call after the pixels are ready and cannot be interrupted; the job then answers at the deadline (or
 * on abort), and the encode, listed in `ctx.abandoned`, keeps its share of the pixel budget until it ends
 * (image-processor.ts), so abandoned work cannot pile up in memory.
 */
export function budgetRace(ctx: OutputContext): BudgetRace {
  return {
    deadline: ctx.deadline,
    signal: ctx.request.signal,
    onAbandon: (abandoned) => ctx.abandoned.push(abandoned),
    toError: (error) => toInputError(error, ctx.deadline),
  };
}

export function toolRun(ctx: OutputContext): ToolRun {
  return { deadline: ctx.deadline, signal: ctx.request.signal, ...toolScope(ctx.request) };
}

export function extensionOf(format: string): string {
  return formatInfo(format)?.extension ?? format;
}
