/** The audio processor as a module (module.ts): ffmpeg encodes take the media lane, like video. */
import { processorModule } from '../module.ts';
import { createAudioProcessor } from './audio-processor.ts';
import { audioConfig } from './config.ts';

export const audioModule = processorModule({
  kind: 'audio',
  lane: 'media',
  configKey: 'audio',
  config: audioConfig,
  create: (config) => createAudioProcessor(config),
});
