/**
 * What a connector of each kind holds, as JSON Schemas (the REST API's and the CLI's input), the shapes of the
 * fields a host is built from, and the masked hint shown instead of them once stored. Every S3-family kind also
 * takes `endpoint` (an S3-compatible server of the operator's own; the tests point it at their S3 server); GCS
 * takes `apiEndpoint` the same way.
 */
import { type TSchema, Type } from 'typebox';
import type { FieldError } from '../errors/catalog.ts';
import { AzureCredentialsError, azureEndpoint } from '../stores/azure-connection-string.ts';
import type { StoreKind } from '../stores/external-store.ts';
import { endpointProblem, isDnsLabel } from '../stores/name-rules.ts';

const str = (description: string) => Type.String({ minLength: 1, maxLength: 8192, description });
const endpoint = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      'API endpoint override: an http(s) URL without user, query or fragment; every connection to it passes ' +
      'the outbound address guard',
  }),
);

export const CREDENTIAL_SCHEMAS: Record<StoreKind, TSchema> = {
  s3: Type.Object(
    { accessKeyId: str('access key id'), secretAccessKey: str('secret access key'), endpoint },
    { additionalProperties: false },
  ),
  r2: Type.Object(
    {
      accountId: str('Cloudflare account id (a DNS label: letters, digits, hyphens)'),
      accessKeyId: str('access key id'),
      secretAccessKey: str('secret access key'),
      endpoint,
    },
    { additionalProperties: false },
  ),
  b2: Type.Object(
    { keyId: str('application key id'), applicationKey: str('application key'), endpoint },
    { additionalProperties: false },
  ),
  spaces: Type.Object(
    { key: str('Spaces access key'), secret: str('Spaces secret key'), endpoint },
    { additionalProperties: false },
  ),
  gcs: Type.Union([
    Type.Object(
      {
        serviceAccount: Type.Object(
          {
            client_email: str('service account e-mail'),
            private_key: str('PEM private key'),
            project_id: Type.Optional(str('project id')),
          },
          { additionalProperties: true, description: 'the service-account key file (JSON)' },
        ),
        apiEndpoint: endpoint,
      },
      { additionalProperties: false },
    ),
    Type.Object(
      { hmacAccessId: str('HMAC access id'), hmacSecret: str('HMAC secret'), endpoint },
      { additionalProperties: false, description: 'HMAC keys, used through the S3-compatible XML API' },
    ),
  ]),
  azure: Type.Union([
    Type.Object(
      {
        accountName: str('storage account name (3-24 lower-case letters and digits)'),
        accountKey: str('account key'),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      { connectionString: str('connection string: known Key=Value elements, each once') },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        accountName: str('storage account name (3-24 lower-case letters and digits)'),
        sasToken: str('SAS token'),
      },
      { additionalProperties: false },
    ),
  ]),
};

/** The public part of the credentials, masked: the key id's first and last four characters. */
export function credentialHint(kind: StoreKind, credentials: Record<string, unknown>): string {
  const id =
    kind === 'gcs'
      ? String(
          (credentials.serviceAccount as { client_email?: string })?.client_email ??
            credentials.hmacAccessId ??
            '',
        )
      : kind === 'azure'
        ? azureAccount(credentials)
        : String(credentials.accessKeyId ?? credentials.keyId ?? credentials.key ?? '');
  if ((kind === 'gcs' && credentials.serviceAccount !== undefined) || kind === 'azure') return id; // not secrets
  return id.length <= 8 ? '…' : `${id.slice(0, 4)}…${id.slice(-4)}`;
}

function azureAccount(credentials: Record<string, unknown>): string {
  try {
    return azureEndpoint(credentials).accountName;
  } catch {
    return '';
  }
}

/**
 * The credential fields a host is built from, checked to be what they name (the schema checked the types):
 * endpoints are plain http(s) URLs, R2's account id a DNS label, Azure's account name an account name and its
 * connection string one strictly parsed. A first layer: every connection is still judged by the address guard.
 */
export function credentialProblems(kind: StoreKind, credentials: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field: `credentials.${field}`, message });
  for (const field of ['endpoint', 'apiEndpoint']) {
    const value = credentials[field];
    const problem = typeof value === 'string' ? endpointProblem(value) : undefined;
    if (problem !== undefined) fail(field, problem);
  }
  if (kind === 'r2' && !isDnsLabel(String(credentials.accountId)))
    fail('accountId', 'must be the Cloudflare account id (letters, digits, hyphens), not a host or URL');
  if (kind === 'azure') {
    try {
      azureEndpoint(credentials);
    } catch (error) {
      if (!(error instanceof AzureCredentialsError)) throw error;
      fail(error.field, error.message.slice(error.field.length + 1));
    }
  }
  return errors;
}
