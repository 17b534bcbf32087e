/**
 * `lossless`: no re-encode. The moving picture and audio streams are copied into the container (index
 * first for MP4 and MOV), subtitles, data tracks, attachments and cover art are dropped, and container
 * metadata is kept (it is the file's own; a remux promises the same content).
 */
import { safeInputArgs } from '../ffmpeg/demuxers.ts';
import { runFfmpeg } from '../ffmpeg/run-ffmpeg.ts';
import type { ToolLimits, ToolRun } from '../shared/run-tool.ts';
import { CONTAINERS } from './encoders.ts';
import type { VideoFormat } from './params.ts';

export async function remuxVideo(
  input: { path: string; format: string },
  format: VideoFormat,
  output: string,
  run: ToolRun,
  limits: Partial<ToolLimits>,
): Promise<void> {
  const container = CONTAINERS[format];
  await runFfmpeg(
    [
      ...safeInputArgs(input.format, input.path),
      '-map',
      '0:V',
      '-map',
      '0:a?',
      '-c',
      'copy',
      '-sn',
      '-dn',
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
}

/** Containers a stream copy can land in by default: the input's own when we write it, else Matroska. */
export function remuxFormat(inputFormat: string, asked: VideoFormat | undefined): VideoFormat {
  if (asked !== undefined) return asked;
  if (inputFormat === 'mp4' || inputFormat === 'mov' || inputFormat === 'webm' || inputFormat === 'mkv') {
    return inputFormat;
  }
  return 'mkv';
}
