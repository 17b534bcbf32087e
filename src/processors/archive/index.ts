/**
 * The archive processor as a module (module.ts). Deep mode passes members to the processor of their kind,
 * looked up when a member is reached, so every kind of the catalog is there (bundles too).
 */
import { processorModule } from '../module.ts';
import { createArchiveProcessor } from './archive-processor.ts';
import { archiveConfig } from './config.ts';

export const archiveModule = processorModule({
  kind: 'archive',
  lane: 'standard',
  configKey: 'archive',
  config: archiveConfig,
  create: (config, host) => createArchiveProcessor((kind) => host.processorFor(kind), config),
});
