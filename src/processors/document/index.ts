/**
 * The office document processor as a module (module.ts). Pictures inside documents go through this process's
 * image processor and are decoded under the operator's image pixel cap (`host.settings.images`).
 */
import { processorModule, requireProcessor } from '../module.ts';
import { documentConfig } from './config.ts';
import { createDocumentProcessor } from './document-processor.ts';

export const documentModule = processorModule({
  kind: 'document',
  lane: 'standard',
  configKey: 'document',
  config: documentConfig,
  create: (config, host) =>
    createDocumentProcessor(requireProcessor(host, 'image', 'document'), config, host.settings),
});
