/**
 * What a processor kind brings, once: its kind and lane, its config section (`PRESSO_*` variables), its
 * parameter namespace and how to build it from its loaded config and the host. The catalog (catalog.ts) lists
 * the modules; the composition root loads their sections and creates them, and the request parser and the
 * registry see only the `Processor` a module's factory returns. Model: gotenberg's `Module.Descriptor()`
 * (ID, flags, factory) with `Provision(ctx)` asking for what other modules provide, never for their defaults.
 */
import type { Static, TObject, TSchema } from '#typebox';
import type { Section } from '../config/env.ts';
import { type FieldError, ValidationError } from '../errors/catalog.ts';
import type { FileKind } from '../media/formats.ts';
import type { UnpackLimits } from './archive-tools/safety.ts';
import { paramsValidator } from './params-validator.ts';
import type { Processor, ProcessRequest, ProcessResult } from './processor.ts';

/**
 * Which queue lane a job of this kind takes: `media` for work that holds an encoder for minutes (video,
 * audio), so a long encode never queues every image behind it.
 */
export type Lane = 'standard' | 'media';

/**
 * The settings of this process that a kind may read besides its own section, loaded from the operator's
 * variables by the composition root (never a sibling's defaults: review 2, 3.2). A kind that needs another
 * setting adds it here and in runtime/services.ts.
 */
export interface HostSettings {
  /** `PRESSO_ARCHIVE_*` caps: a website bundle is listed, checked and unpacked under them. */
  archive: UnpackLimits;
  /** `PRESSO_IMAGE_MAX_PIXELS`: pictures inside office documents are decoded under it. */
  images: { maxPixels: number };
}

/** What the composition root hands each module's factory. */
export interface ProcessorHost {
  /**
   * The processor of a kind in this process, or undefined when none is installed. Kinds created earlier in
   * the catalog are there while a factory runs; a lookup at process time sees every kind.
   */
  processorFor(kind: FileKind): Processor | undefined;
  readonly settings: HostSettings;
  /** A tool succeeded with warnings (qpdf repairing a damaged file): logged with the component's name. */
  warn(component: string, message: string): void;
}

/**
 * A parameter namespace: the public schema (part of the API and the OpenAPI document), the same schema with
 * every defaulted field required (`resolved`: what a processor receives once the schema's `default`s are
 * applied), cross-field rules, and the derivations a processor wants (`pdfa` from `format`).
 */
export interface ParamsSpec<R extends TSchema, P> {
  readonly schema: TObject;
  readonly resolved: R;
  /** Rules across fields the schema cannot say; the params may be schema-invalid (the parser runs it even then). */
  check?(params: Record<string, unknown>, namespace: string): FieldError[];
  derive(params: Static<R>): P;
}

/** A processor as its kind writes it: parameters typed, defaults applied, already checked. */
export interface KindProcessor<P> extends Omit<Processor, 'paramsSchema' | 'checkParams' | 'process'> {
  process(request: ProcessRequest<P>): Promise<ProcessResult>;
}

export interface ProcessorModule<C, K extends string = string> {
  readonly kind: FileKind;
  readonly lane: Lane;
  /** Where its loaded section sits in the process's configuration (`config.images`) and in the README order. */
  readonly configKey: K;
  /** The kind's `PRESSO_*` variables: listed in `presso config` and the README, loaded at start-up. */
  readonly config: Section<C>;
  /** Builds the processor from its loaded section: every field set, from the operator's variables or defaults. */
  create(config: C, host: ProcessorHost): Processor;
}

/** Declares a module, keeping its `configKey` literal so the configuration's type names every section. */
export function processorModule<C, const K extends string>(
  module: ProcessorModule<C, K>,
): ProcessorModule<C, K> {
  return module;
}

/**
 * The one typed entry of a kind, for every caller (a job from the queue, an archive's member, a PDF's
 * image): applies the schema's defaults, checks the result against the resolved schema and the cross-field
 * rules, and hands the kind its typed parameters. The request parser checked the same rules before the job
 * existed; this keeps a kind from ever checking or defaulting again.
 */
export function typedProcessor<R extends TSchema, P>(
  spec: ParamsSpec<R, P>,
  kind: KindProcessor<P>,
): Processor {
  const namespace = kind.kind;
  const optional = defaultsLeftOptional(spec.schema, spec.resolved, namespace);
  if (optional.length > 0)
    throw new Error(
      `the resolved schema of ${namespace} leaves optional what its schema defaults: ${optional}`,
    );
  const validate = paramsValidator(spec.schema, spec.resolved, namespace);
  return {
    ...kind,
    paramsSchema: spec.schema,
    ...(spec.check === undefined ? {} : { checkParams: spec.check }),
    // Async: a refusal is a rejected promise, like every other failure of `process`.
    process: async (request) => {
      const problems = spec.check?.(request.params, namespace) ?? [];
      const { params, errors } = validate(request.params);
      if (errors.length > 0) throw new ValidationError([...errors, ...problems]);
      if (problems.length > 0) throw new ValidationError(problems);
      return kind.process({ ...request, params: spec.derive(params as Static<R>) });
    },
  };
}

/**
 * The fields `schema` gives a default that `resolved` does not require, inside nested objects too: the typed
 * parameters would leave them optional, and `derive` would write the default again (`?? 'high'`), a second
 * place for it to drift. A default on an optional object (`images: {}`) lets the defaults inside it apply
 * when the caller leaves the object out.
 */
export function defaultsLeftOptional(schema: TSchema, resolved: TSchema, path: string): string[] {
  const properties = (schema as Partial<TObject>).properties;
  if (properties === undefined) return [];
  const resolvedObject = resolved as Partial<TObject>;
  const required = new Set(resolvedObject.required ?? []);
  return Object.entries(properties).flatMap(([name, property]) => {
    const field = `${path}.${name}`;
    const here = 'default' in property && !required.has(name) ? [field] : [];
    const resolvedProperty = resolvedObject.properties?.[name];
    if (resolvedProperty === undefined) return here;
    return [...here, ...defaultsLeftOptional(property, resolvedProperty, field)];
  });
}

/** A processor a kind cannot work without (document and bundle need the image processor). */
export function requireProcessor(host: ProcessorHost, kind: FileKind, by: string): Processor {
  const processor = host.processorFor(kind);
  if (processor === undefined)
    throw new Error(`the ${by} processor needs the ${kind} processor, earlier in the catalog`);
  return processor;
}
