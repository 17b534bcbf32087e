/** The image processor as a module (module.ts): JPEG, PNG, WebP, AVIF, GIF, TIFF, SVG, HEIC, BMP and ICO. */
import { processorModule } from '../module.ts';
import { imageConfig } from './config.ts';
import { createImageProcessor } from './image-processor.ts';

export const imageModule = processorModule({
  kind: 'image',
  lane: 'standard',
  configKey: 'images',
  config: imageConfig,
  create: (config) => createImageProcessor(config),
});
