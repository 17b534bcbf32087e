/**
 * Route schemas compiled when a route first needs them, not when the app is built. Fastify compiles every
 * route's validators (Ajv) and every status code's serializer (fast-json-stringify) at start-up: about
 * 0.15 CPU-s for this API, paid by every server start, every CLI command that builds the app and every
 * test app, though a process serves few of its routes. Compiled once, each is kept for the app's life; what
 * a request sees (the checks, the error list, the bytes of a reply) is the same as with eager compiling.
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { ValidateFunction } from 'ajv';

type Validator = ((data: unknown) => boolean) & { errors?: ValidateFunction['errors'] };

/**
 * A validator that compiles on its first call. Fastify reads a failed check's `errors` from the function
 * itself, so they are copied over after each call.
 */
export function lazyValidator(compile: () => ValidateFunction): Validator {
  let compiled: ValidateFunction | undefined;
  const validate: Validator = (data) => {
    compiled ??= compile();
    const valid = compiled(data) as boolean;
    validate.errors = compiled.errors;
    return valid;
  };
  return validate;
}

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/** Fastify's own serializer factory (fast-json-stringify), each route's serializer built by its first reply. */
export const lazySerializers: SerializerFactory = (externalSchemas, options) => {
  const build = SerializerSelector()(externalSchemas, options);
  return (route) => {
    let serialize: ((doc: unknown) => string) | undefined;
    return (doc) => {
      serialize ??= build(route);
      return serialize(doc);
    };
  };
};
