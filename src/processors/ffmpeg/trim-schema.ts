/** The `trim` parameter, the same in the `video` and `audio` namespaces. */
import { type Static, Type } from '#typebox';

const seconds = (description: string, minimum: number, options: { default?: number } = {}) =>
  Type.Number({ minimum, maximum: 86_400, description, ...options });

export const trimSchema = Type.Object(
  {
    start: Type.Optional(seconds('Seconds to skip from the start (default 0).', 0, { default: 0 })),
    duration: Type.Optional(seconds('Seconds to keep from `start` (default: to the end).', 0.01)),
  },
  { additionalProperties: false, description: 'Keep only part of the file.' },
);

/** `trim` once its default is applied: `start` always set. */
export const resolvedTrimSchema = Type.Object(
  { ...trimSchema.properties, ...Type.Required(Type.Pick(trimSchema, ['start'])).properties },
  { additionalProperties: false },
);

/** A trim as a processor receives it: from `start` (seconds), `duration` seconds or to the end. */
export type Trim = Static<typeof resolvedTrimSchema>;
