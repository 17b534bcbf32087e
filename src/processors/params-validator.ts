/**
 * The schema's `default`s applied to a copy of a kind's parameters, and the result checked against the
 * resolved schema, with the API's one JSON Schema engine (Ajv, as the request parser): errors read as the
 * request parser's do (`video.format: must be one of ...`). TypeBox's own `Value` module did this before; it
 * loads about 300 more modules into every process (≈0.1 CPU-s a start, measured), for work Ajv already does.
 * Both validators are compiled on first use, so a process that never processes a kind never compiles them.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { TSchema } from '#typebox';
import type { FieldError } from '../errors/catalog.ts';
import { compile, toFieldErrors } from '../validation/schema-validator.ts';

/**
 * Fills in defaults as it validates (`useDefaults`): a missing property gets its schema's default, then that
 * value is validated too, so the defaults of an object defaulted to `{}` apply inside it as well.
 */
const withDefaults = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: true });

export interface ValidatedParams {
  params: Record<string, unknown>;
  errors: FieldError[];
}

export function paramsValidator(
  schema: TSchema,
  resolved: TSchema,
  namespace: string,
): (params: Record<string, unknown>) => ValidatedParams {
  let compiled: { fill: ValidateFunction; check: ValidateFunction } | undefined;
  return (input) => {
    compiled ??= { fill: withDefaults.compile(schema), check: compile(resolved) };
    const params = structuredClone(input);
    compiled.fill(params);
    if (compiled.check(params)) return { params, errors: [] };
    // Placed under the namespace, the fields read as in a request body: `video.trim.start`.
    const errors = (compiled.check.errors ?? []).map((error) => ({
      ...error,
      instancePath: `/${namespace}${error.instancePath}`,
    }));
    return { params, errors: toFieldErrors(errors) };
  };
}
