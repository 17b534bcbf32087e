/**
 * The ffmpeg arguments of one audio job: the first audio track re-encoded (or copied for a lossless
 * remux), tags and cover art kept or dropped, channels and rate as asked, and `+bitexact` so the same
 * request gives the same bytes.
 */
import type { MediaProbe, ProbedStream } from '../ffmpeg/probe.ts';
import { AUDIO_FORMATS, LOSSLESS_CODECS } from './encoders.ts';
import type { AudioFormat, ResolvedAudioParams } from './params.ts';

export interface AudioPlan {
  format: AudioFormat;
  /** Copy the track as it is (lossless remux of a lossy input). */
  copy: boolean;
  kbps: number | undefined;
}

/** The default output: the input's format; uncompressed PCM becomes FLAC, WMA becomes M4A (AAC). */
export function defaultAudioFormat(inputFormat: string): AudioFormat {
  if (inputFormat === 'wav' || inputFormat === 'aiff') return 'flac';
  // Audio-only WebM is Opus or Vorbis (the WebM codecs): Ogg Opus keeps the family.
  if (inputFormat === 'weba') return 'opus';
  return Object.hasOwn(AUDIO_FORMATS, inputFormat) ? (inputFormat as AudioFormat) : 'm4a';
}

export function planAudioOutput(
  params: ResolvedAudioParams,
  inputFormat: string,
  audio: ProbedStream,
): AudioPlan {
  const lossyInput = !LOSSLESS_CODECS.has(audio.codec);
  if (params.compression === 'lossless') {
    // A lossy track is kept as it is (re-encoding it losslessly only adds bytes), unless its channels or
    // rate are to change: a copy cannot do that, FLAC can.
    if (
      params.format === undefined &&
      lossyInput &&
      params.channels === undefined &&
      params.sampleRate === undefined &&
      AUDIO_FORMATS[inputFormat as AudioFormat] !== undefined
    ) {
      return { format: inputFormat as AudioFormat, copy: true, kbps: undefined };
    }
    return { format: params.format ?? 'flac', copy: false, kbps: undefined };
  }
  const format = params.format ?? defaultAudioFormat(inputFormat);
  const perChannel = AUDIO_FORMATS[format].perChannel;
  if (perChannel === undefined) return { format, copy: false, kbps: undefined };
  if (params.bitrate !== undefined) {
    // libopus takes 6 to 256 kbit/s per channel and refuses the rest; other encoders round to what they can.
    const channels = Math.min(2, params.channels ?? audio.channels ?? 2);
    const kbps =
      format === 'opus' ? Math.min(256 * channels, Math.max(6 * channels, params.bitrate)) : params.bitrate;
    return { format, copy: false, kbps };
  }
  const channels = Math.min(2, params.channels ?? audio.channels ?? 2);
  let kbps = perChannel[params.compression] * channels;
  // Re-encoding a lossy track at a higher rate only adds bytes: stay at or under the input's rate.
  if (lossyInput && audio.bitrate !== undefined)
    kbps = Math.min(kbps, Math.max(8, Math.floor(audio.bitrate / 1000)));
  return { format, copy: false, kbps };
}

/** PCM as deep as the input's samples: a 24-bit source written as 16-bit WAV would lose its low bits. */
function pcmEncoder(audio: ProbedStream | undefined): string {
  if (audio?.codec.startsWith('pcm_f64')) return 'pcm_f64le';
  if (audio?.codec.startsWith('pcm_f')) return 'pcm_f32le';
  const bits = audio?.bitsPerSample ?? 16;
  return bits > 24 ? 'pcm_s32le' : bits > 16 ? 'pcm_s24le' : 'pcm_s16le';
}

export function audioArgs(plan: AudioPlan, params: ResolvedAudioParams, probe: MediaProbe): string[] {
  const settings = AUDIO_FORMATS[plan.format];
  const args = ['-map', '0:a:0'];
  const cover = probe.streams.find((s) => s.type === 'video' && s.attachedPicture);
  const keep = params.metadata === 'keep';
  if (
    keep &&
    settings.coverArt &&
    cover !== undefined &&
    (cover.codec === 'mjpeg' || cover.codec === 'png')
  ) {
    args.push('-map', `0:${cover.index}`, '-c:v', 'copy', '-disposition:v:0', 'attached_pic');
  } else {
    args.push('-vn');
  }
  const audio = probe.streams.find((s) => s.type === 'audio');
  // Ogg and Opus keep a file's tags on its audio stream: those become the output's, where the container has none.
  const tagsOnStream = keep && Object.keys(probe.tags).length === 0 && audio?.hasTags === true;
  args.push(
    '-map_metadata',
    tagsOnStream ? '0:s:a:0' : keep ? '0' : '-1',
    '-map_chapters',
    keep ? '0' : '-1',
  );
  if (plan.copy) return [...args, '-c:a', 'copy', ...settings.extraArgs];
  args.push('-c:a', plan.format === 'wav' ? pcmEncoder(audio) : settings.encoder);
  if (plan.kbps !== undefined) args.push('-b:a', `${plan.kbps}k`);
  if (params.channels !== undefined) args.push('-ac', String(params.channels));
  else if ((probe.streams.find((s) => s.type === 'audio')?.channels ?? 2) > 2 && settings.perChannel) {
    args.push('-ac', '2'); // lossy levels are sized for stereo; surround is mixed down
  }
  if (params.sampleRate !== undefined) args.push('-ar', String(params.sampleRate));
  return [...args, ...settings.extraArgs];
}
