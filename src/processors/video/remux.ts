/**
 * `lossless`: no re-encode. The moving picture and audio streams are copied into the container (index
 * first for MP4 and MOV), subtitles, data tracks, attachments and cover art are dropped, and container
 * metadata is kept (it is the file's own; a remux promises the same content) except where the camera was:
 * phone videos carry a GPS position (the MP4 `©xyz` atom, Apple's location keys), and no other level of
 * the service lets one through.
 */
import { UnprocessableInputError } from '../../errors/catalog.ts';
import type { MediaRun } from '../ffmpeg/decode-bounds.ts';
import { safeInputArgs } from '../ffmpeg/demuxers.ts';
import type { MediaProbe } from '../ffmpeg/probe.ts';
import { runFfmpeg } from '../ffmpeg/run-ffmpeg.ts';
import type { ToolLimits } from '../shared/run-tool.ts';
import { CONTAINERS } from './encoders.ts';
import type { VideoFormat } from './params.ts';

export async function remuxVideo(
  input: { path: string; format: string },
  format: VideoFormat,
  output: string,
  run: MediaRun,
  limits: Pick<ToolLimits, 'fileBytes'>,
): Promise<void> {
  const container = CONTAINERS[format];
  const copied = await runFfmpeg(
    [
      ...safeInputArgs(input.format, input.path, run.bounds),
      '-map',
      '0:V',
      '-map',
      '0:a?',
      '-c',
      'copy',
      '-sn',
      '-dn',
      ...LOCATION_TAGS.flatMap((tag) => ['-metadata', `${tag}=`]),
      '-fflags',
      '+bitexact',
      ...container.muxerArgs,
      '-f',
      container.muxer,
      output,
    ],
    run,
    { limits },
  );
  // ffmpeg exits 0 when it could read no packet at all (samples outside the file, offsets past its end):
  // an empty container is not a copy.
  if (copied.frames === 0) throw new UnprocessableInputError('The video holds no frame that can be read.');
}

/** Container tags that say where a file was made, as ffmpeg names them; an empty value removes a tag. */
const LOCATION_TAGS = [
  'location',
  'location-eng',
  'com.apple.quicktime.location.ISO6709',
  'com.apple.quicktime.location.accuracy.horizontal',
  'com.apple.quicktime.location.name',
];

/**
 * WebM's muxer takes only these codecs (ffmpeg: "Only VP8 or VP9 or AV1 video and Vorbis or Opus audio");
 * a copy of anything else is refused before ffmpeg fails on it with a message about its output stream.
 */
const WEBM_COPYABLE = new Set(['vp8', 'vp9', 'av1', 'opus', 'vorbis']);

/** Why the copied streams cannot go into `format`, for a 422 on video.format; undefined when they can. */
export function remuxRefusal(probe: MediaProbe, format: VideoFormat): string | undefined {
  if (format !== 'webm') return undefined;
  const copied = probe.streams.filter(
    (s) => (s.type === 'video' && !s.attachedPicture) || s.type === 'audio',
  );
  const refused = [...new Set(copied.map((s) => s.codec).filter((codec) => !WEBM_COPYABLE.has(codec)))];
  if (refused.length === 0) return undefined;
  return `a lossless copy keeps the file's ${refused.join(' and ')}, which webm cannot carry (it takes VP8, VP9 or AV1 video and Opus or Vorbis audio): ask for mkv, or a lossy level`;
}

/** Containers a stream copy can land in by default: the input's own when we write it, else Matroska. */
export function remuxFormat(inputFormat: string, asked: VideoFormat | undefined): VideoFormat {
  if (asked !== undefined) return asked;
  if (inputFormat === 'mp4' || inputFormat === 'mov' || inputFormat === 'webm' || inputFormat === 'mkv') {
    return inputFormat;
  }
  return 'mkv';
}
