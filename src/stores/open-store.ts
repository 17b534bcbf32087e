/**
 * A connector's kind and decrypted credentials → the store that writes with them, every connection of it
 * through `agents` (the address guard at connection time: src/outbound/guarded-agents.ts). Each kind's module
 * (catalog.ts) opens its own store, importing its SDK (@aws-sdk/*, @azure/storage-blob) on first use.
 */
import type { GuardedAgents } from '../outbound/guarded-agents.ts';
import { type StoreKind, storeModuleOf } from './catalog.ts';
import type { ExternalStore } from './external-store.ts';

export function openStore(
  kind: StoreKind,
  credentials: Record<string, unknown>,
  agents: GuardedAgents,
): Promise<ExternalStore> {
  return storeModuleOf(kind).open(credentials, agents);
}
