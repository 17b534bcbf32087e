/**
 * The PDF processor as a module (module.ts). Images embedded in PDFs are recompressed through this process's
 * image processor (its memory budget shared); what a tool warned about while succeeding is logged.
 */
import { processorModule } from '../module.ts';
import { pdfConfig } from './config.ts';
import { createPdfProcessor } from './pdf-processor.ts';

export const pdfModule = processorModule({
  kind: 'pdf',
  lane: 'standard',
  configKey: 'pdf',
  config: pdfConfig,
  create: (config, host) => {
    const images = host.processorFor('image');
    return createPdfProcessor({
      ...config,
      ...(images === undefined ? {} : { images }),
      onWarning: (message) => host.warn('pdf', message),
    });
  },
});
