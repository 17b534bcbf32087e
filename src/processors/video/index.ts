/** The video processor as a module (module.ts): an encode holds ffmpeg for minutes, so it takes the media lane. */
import { processorModule } from '../module.ts';
import { videoConfig } from './config.ts';
import { createVideoProcessor } from './video-processor.ts';

export const videoModule = processorModule({
  kind: 'video',
  lane: 'media',
  configKey: 'videos',
  config: videoConfig,
  create: (config) => createVideoProcessor(config),
});
