/**
 * Creates the catalog's processors for one process: each module gets its own loaded section and the host
 * (module.ts): the processors of other kinds, looked up when used, and the operator's settings it may read
 * besides its own.
 */
import type { FileKind } from '../media/formats.ts';
import { PROCESSORS } from './catalog.ts';
import type { HostSettings, ProcessorHost, ProcessorModule } from './module.ts';
import type { Processor } from './processor.ts';
import { ProcessorRegistry } from './registry.ts';

export interface HostOptions {
  /** Every loaded section of the configuration, by key; each module reads `sections[module.configKey]`. */
  sections: Record<string, unknown>;
  settings: HostSettings;
  warn(component: string, message: string): void;
}

export function createProcessors({ sections, settings, warn }: HostOptions): ProcessorRegistry {
  const created = new Map<FileKind, Processor>();
  let registry: ProcessorRegistry | undefined;
  const host: ProcessorHost = {
    processorFor: (kind) => registry?.forKind(kind) ?? created.get(kind),
    settings,
    warn,
  };
  // The modules' configs differ; each is handed the section its own `config` loaded (method parameters are
  // checked both ways, so the catalog reads as modules of unknown config without a cast).
  const modules: readonly ProcessorModule<unknown>[] = PROCESSORS;
  for (const module of modules) created.set(module.kind, module.create(sections[module.configKey], host));
  registry = new ProcessorRegistry([...created.values()]);
  return registry;
}
