/**
 * The `audio` parameter namespace: its JSON Schema (part of the public API), the resolved form, and
 * the cross-field rules the schema cannot say.
 */
import { type Static, Type } from '#typebox';
import type { FieldError } from '../../errors/catalog.ts';
import { resolvedTrimSchema, type Trim, trimSchema } from '../ffmpeg/trim-schema.ts';
import type { ParamsSpec } from '../module.ts';

export const AUDIO_COMPRESSION_LEVELS = ['medium', 'high', 'ultra', 'lossless'] as const;
export type AudioCompression = (typeof AUDIO_COMPRESSION_LEVELS)[number];
export const AUDIO_OUTPUT_FORMATS = ['mp3', 'aac', 'm4a', 'opus', 'ogg', 'flac', 'wav'] as const;
export type AudioFormat = (typeof AUDIO_OUTPUT_FORMATS)[number];
export const LOSSLESS_FORMATS: readonly AudioFormat[] = ['flac', 'wav'];
/** The rates libopus encodes; any other would be refused by the encoder. */
export const OPUS_RATES = [8000, 12000, 16000, 24000, 48000] as const;
const SAMPLE_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] as const;

export const audioParamsSchema = Type.Object(
  {
    compression: Type.Optional(
      Type.Enum(AUDIO_COMPRESSION_LEVELS, {
        default: 'high',
        description:
          'Bitrate per channel chosen by level and codec (`medium` the highest, `ultra` the lowest); ' +
          '`lossless` writes FLAC (or WAV when asked), or remuxes a lossy input without re-encoding it.',
      }),
    ),
    format: Type.Optional(
      Type.Enum(AUDIO_OUTPUT_FORMATS, {
        description:
          'Output format; default: the input format (WAV and AIFF become FLAC). `aac` is raw ADTS, `m4a` AAC ' +
          'in MP4, `ogg` Vorbis, `opus` Opus in Ogg.',
      }),
    ),
    bitrate: Type.Optional(
      Type.Integer({ minimum: 8, maximum: 512, description: 'Total bitrate in kbit/s (lossy formats).' }),
    ),
    channels: Type.Optional(Type.Enum([1, 2], { description: 'Mix down to mono or stereo.' })),
    sampleRate: Type.Optional(
      Type.Enum(SAMPLE_RATES, {
        description: 'Resample to this rate in Hz; opus takes 8, 12, 16, 24 or 48 kHz.',
      }),
    ),
    trim: Type.Optional(trimSchema),
    metadata: Type.Optional(
      Type.Enum(['keep', 'strip'], {
        default: 'keep',
        description: '`keep` tags and cover art (cover art in mp3, m4a and flac), `strip` removes both.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Parameters for audio files (extension of this server).' },
);

export type AudioParams = Static<typeof audioParamsSchema>;

export interface ResolvedAudioParams {
  compression: AudioCompression;
  format: AudioFormat | undefined;
  bitrate: number | undefined;
  channels: 1 | 2 | undefined;
  sampleRate: number | undefined;
  trim: Trim | undefined;
  metadata: 'keep' | 'strip';
}

/** The schema with every field that has a default required, in `trim` too: what the processor receives. */
const resolvedAudioParamsSchema = Type.Object(
  {
    ...audioParamsSchema.properties,
    ...Type.Required(Type.Pick(audioParamsSchema, ['compression', 'metadata'])).properties,
    trim: Type.Optional(resolvedTrimSchema),
  },
  { additionalProperties: false },
);

export function checkAudioParams(params: Record<string, unknown>, namespace: string): FieldError[] {
  const errors: FieldError[] = [];
  const { format, compression, bitrate, sampleRate } = params;
  const lossless = typeof format === 'string' && (LOSSLESS_FORMATS as readonly string[]).includes(format);
  if (compression === 'lossless' && typeof format === 'string' && !lossless) {
    errors.push({ field: `${namespace}.format`, message: `lossless writes flac or wav, not ${format}` });
  }
  if (bitrate !== undefined && (lossless || compression === 'lossless')) {
    errors.push({ field: `${namespace}.bitrate`, message: 'a bitrate applies only to lossy formats' });
  }
  if (
    format === 'opus' &&
    typeof sampleRate === 'number' &&
    !(OPUS_RATES as readonly number[]).includes(sampleRate)
  ) {
    errors.push({ field: `${namespace}.sampleRate`, message: `opus takes ${OPUS_RATES.join(', ')} Hz` });
  }
  return errors;
}

/**
 * The namespace as the module's typed entry applies it (module.ts `typedProcessor`): defaults applied (inside
 * `trim` too), checked once; the processor's form is the defaulted params as they are.
 */
export const audioParams: ParamsSpec<typeof resolvedAudioParamsSchema, ResolvedAudioParams> = {
  schema: audioParamsSchema,
  resolved: resolvedAudioParamsSchema,
  check: checkAudioParams,
  derive: ({ compression, format, bitrate, channels, sampleRate, trim, metadata }) => ({
    compression,
    format,
    bitrate,
    channels,
    sampleRate,
    trim,
    metadata,
  }),
};
