/**
 * Every store kind, one line each (the processors' catalog has the same shape). The kinds' union type, the
 * `kind` values the connector API accepts (in this order) and the look-up by kind come from here. R2, B2 and
 * Spaces are presets of the one S3 store (s3/index.ts), and GCS with HMAC keys goes through it as well.
 */
import { azureModule } from './azure/index.ts';
import { gcsModule } from './gcs/index.ts';
import { b2Module, r2Module, s3Module, spacesModule } from './s3/index.ts';
import type { StoreModule } from './store-module.ts';

export const STORE_MODULES = [s3Module, gcsModule, r2Module, b2Module, spacesModule, azureModule] as const;

export type StoreKind = (typeof STORE_MODULES)[number]['kind'];

export const STORE_KINDS: readonly StoreKind[] = STORE_MODULES.map((module) => module.kind);

export function isStoreKind(kind: string): kind is StoreKind {
  return STORE_KINDS.some((known) => known === kind);
}

export function storeModuleOf(kind: StoreKind): StoreModule<StoreKind> {
  const module = STORE_MODULES.find((candidate) => candidate.kind === kind);
  if (module === undefined) throw new Error(`no store module for kind ${kind}`);
  return module;
}
