/** The `"metadata": true` answer for video and audio: container, duration, streams and tags of the input. */
import type { MediaProbe, ProbedStream } from './probe.ts';

function describeStream(s: ProbedStream): Record<string, unknown> {
  const common = { index: s.index, type: s.type, codec: s.codec, bitrate: s.bitrate, language: s.language };
  if (s.type === 'video') {
    return {
      ...common,
      width: s.width,
      height: s.height,
      fps: s.fps,
      rotation: s.rotation,
      pixelFormat: s.pixelFormat,
      colorTransfer: s.colorTransfer,
      coverArt: s.attachedPicture,
    };
  }
  if (s.type === 'audio') return { ...common, channels: s.channels, sampleRate: s.sampleRate };
  return common;
}

/** Undefined fields are dropped so the JSON shows only what the file says. */
function compact(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}

export function describeMedia(probe: MediaProbe): Record<string, unknown> {
  return {
    container: probe.container,
    duration: Math.round(probe.durationSeconds * 1000) / 1000,
    ...(probe.bitrate === undefined ? {} : { bitrate: probe.bitrate }),
    streams: probe.streams.map((s) => compact(describeStream(s))),
    tags: probe.tags,
  };
}
