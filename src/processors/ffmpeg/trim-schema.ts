/** The `trim` parameter, the same in the `video` and `audio` namespaces. */
import { Type } from 'typebox';

const seconds = (description: string, minimum: number) =>
  Type.Number({ minimum, maximum: 86_400, description });

export const trimSchema = Type.Object(
  {
    start: Type.Optional(seconds('Seconds to skip from the start (default 0).', 0)),
    duration: Type.Optional(seconds('Seconds to keep from `start` (default: to the end).', 0.01)),
  },
  { additionalProperties: false, description: 'Keep only part of the file.' },
);
