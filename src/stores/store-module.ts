/**
 * What a store kind brings, in one object in its folder (`stores/<kind>/index.ts`): its name, the JSON Schema
 * of a connector's credentials, the `store` object's rules for it, the credential fields that point it at an
 * endpoint, the masked hint shown once credentials are stored, and how to open it. catalog.ts lists the
 * modules; nothing else names a kind. Model: imgproxy's storage/<backend>/ folders with one shared test suite.
 */
import { type TSchema, Type } from '#typebox';
import type { GuardedAgents } from '../outbound/guarded-agents.ts';
import type { ExternalStore } from './external-store.ts';

/** The `store` object's rules for one kind, as the interface's table gives them (store-rules.ts applies them). */
export interface StoreRules {
  region: 'required' | 'refused';
  /** The only regions a kind has (B2's six). */
  regions?: readonly string[];
  acl: { default: string | undefined; values?: readonly string[] };
  /** Storage classes by the request's name → the API's (S3 only). */
  classes?: Record<string, string>;
  /** The header names a kind allows, canonical. */
  headers: readonly string[];
  tags: boolean;
  /** `container` names the bucket too (Azure's word); both only when they agree. */
  container?: boolean;
}

/** A credential field of a connector's schema. */
export const credentialText = (description: string) =>
  Type.String({ minLength: 1, maxLength: 8192, description });

/** The optional field that points a kind at an endpoint of the operator's own. */
export const endpointOverride = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      'API endpoint override: an http(s) URL without user, query or fragment; every connection to it passes ' +
      'the outbound address guard',
  }),
);

export const COMMON_HEADERS = ['Cache-Control', 'Content-Type', 'Content-Encoding', 'Content-Disposition'];

export interface StoreModule<K extends string = string> {
  readonly kind: K;
  /** For people: error messages start with it (`The Cloudflare R2 store refused the credentials`). */
  readonly name: string;
  /** A connector's credentials of this kind (the REST API's and the CLI's input). */
  readonly credentials: TSchema;
  readonly rules: StoreRules;
  /** Credential fields that override the API endpoint: checked to be plain http(s) URLs when stored. */
  readonly endpoints: readonly string[];
  /** The public part of the credentials, masked: what a connector shows once they are stored. */
  hint(credentials: Record<string, unknown>): string;
  /** Other credential fields a host is built from, checked to be what they name (entries on their names). */
  problems?(credentials: Record<string, unknown>): { field: string; message: string }[];
  /**
   * The store that writes with these credentials, every connection through `agents`. Its module (with its
   * SDK) is imported on first use, so a server whose accounts never use the kind does not hold it in memory.
   */
  open(credentials: Record<string, unknown>, agents: GuardedAgents): Promise<ExternalStore>;
}

/** Declares a store module, keeping its `kind` literal so the catalog's kinds are a type. */
export function storeModule<const K extends string>(module: StoreModule<K>): StoreModule<K> {
  return module;
}

/** A key id masked to its first and last four characters (too short: masked whole). */
export function maskedId(id: string): string {
  return id.length <= 8 ? '…' : `${id.slice(0, 4)}…${id.slice(-4)}`;
}
