/**
 * Audio encoder settings per output format: the encoder, the muxer, the bitrate per channel of each
 * lossy level (about what listening tests find transparent at `medium` and clean speech and music at
 * `ultra`), and whether the container carries cover art.
 */
import type { AudioFormat } from './params.ts';

export interface AudioFormatSettings {
  encoder: string;
  /** ffprobe's codec name for this format's streams (a copy is possible when the input has it). */
  probeName: string;
  muxer: string;
  /** kbit/s per channel of the lossy levels; undefined for lossless formats. */
  perChannel: { medium: number; high: number; ultra: number } | undefined;
  coverArt: boolean;
  extraArgs: string[];
}

export const AUDIO_FORMATS: Readonly<Record<AudioFormat, AudioFormatSettings>> = {
  mp3: {
    encoder: 'libmp3lame',
    probeName: 'mp3',
    muxer: 'mp3',
    // high: 128 kbit/s stereo (joint stereo), ffmpeg's own default and the common "good" rate; 80 per
    // channel made mono speech 1.25x ffmpeg's default bytes for no audible gain.
    perChannel: { medium: 80, high: 64, ultra: 48 },
    coverArt: true,
    extraArgs: ['-id3v2_version', '3'],
  },
  aac: {
    encoder: 'aac',
    probeName: 'aac',
    muxer: 'adts',
    perChannel: { medium: 80, high: 64, ultra: 48 },
    coverArt: false,
    extraArgs: [],
  },
  m4a: {
    encoder: 'aac',
    probeName: 'aac',
    muxer: 'ipod',
    perChannel: { medium: 80, high: 64, ultra: 48 },
    coverArt: true,
    extraArgs: ['-movflags', '+faststart'],
  },
  opus: {
    encoder: 'libopus',
    probeName: 'opus',
    muxer: 'opus',
    perChannel: { medium: 56, high: 40, ultra: 28 },
    coverArt: false,
    extraArgs: [],
  },
  ogg: {
    encoder: 'libvorbis',
    probeName: 'vorbis',
    muxer: 'ogg',
    perChannel: { medium: 80, high: 64, ultra: 48 },
    coverArt: false,
    extraArgs: [],
  },
  flac: {
    encoder: 'flac',
    probeName: 'flac',
    muxer: 'flac',
    perChannel: undefined,
    coverArt: true,
    extraArgs: ['-compression_level', '8'],
  },
  wav: {
    encoder: 'pcm_s16le',
    probeName: 'pcm_s16le',
    muxer: 'wav',
    perChannel: undefined,
    coverArt: false,
    extraArgs: [],
  },
};

/** Codecs that lose nothing: their input is worth keeping lossless by default. */
export const LOSSLESS_CODECS = new Set([
  'flac',
  'alac',
  'pcm_s16le',
  'pcm_s24le',
  'pcm_s32le',
  'pcm_s16be',
  'pcm_s24be',
  'pcm_f32le',
]);
