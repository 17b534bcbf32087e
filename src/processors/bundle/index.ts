/**
 * The website bundle processor as a module (module.ts). Its images go through this process's image processor,
 * and it is unpacked under the operator's archive settings (`host.settings.archive`).
 */
import { processorModule, requireProcessor } from '../module.ts';
import { createBundleProcessor } from './bundle-processor.ts';
import { bundleConfig } from './config.ts';

export const bundleModule = processorModule({
  kind: 'bundle',
  lane: 'standard',
  configKey: 'bundle',
  config: bundleConfig,
  create: (config, host) =>
    createBundleProcessor(requireProcessor(host, 'image', 'bundle'), config, host.settings),
});
