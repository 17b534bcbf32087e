/**
 * What a connector of each kind holds, as JSON Schemas (the REST API's and the CLI's input), and the masked
 * hint shown instead of them once stored. Every S3-family kind also takes `endpoint` (an S3-compatible server
 * of the operator's own; the tests point it at their S3 server); GCS takes `apiEndpoint` the same way.
 */
import { type TSchema, Type } from 'typebox';
import type { StoreKind } from '../stores/external-store.ts';

const str = (description: string) => Type.String({ minLength: 1, maxLength: 8192, description });
const endpoint = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'API endpoint override (checked by the outbound address guard)',
  }),
);

export const CREDENTIAL_SCHEMAS: Record<StoreKind, TSchema> = {
  s3: Type.Object(
    { accessKeyId: str('access key id'), secretAccessKey: str('secret access key'), endpoint },
    { additionalProperties: false },
  ),
  r2: Type.Object(
    {
      accountId: str('Cloudflare account id'),
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
      { accountName: str('storage account name'), accountKey: str('account key') },
      { additionalProperties: false },
    ),
    Type.Object({ connectionString: str('connection string') }, { additionalProperties: false }),
    Type.Object(
      { accountName: str('storage account name'), sasToken: str('SAS token') },
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
        ? String(
            credentials.accountName ??
              /AccountName=([^;]+)/.exec(String(credentials.connectionString ?? ''))?.[1] ??
              '',
          )
        : String(credentials.accessKeyId ?? credentials.keyId ?? credentials.key ?? '');
  if ((kind === 'gcs' && credentials.serviceAccount !== undefined) || kind === 'azure') return id; // not secrets
  return id.length <= 8 ? '…' : `${id.slice(0, 4)}…${id.slice(-4)}`;
}

/** The endpoint a connector's credentials override, if any: checked against the outbound address guard. */
export function customEndpoint(credentials: Record<string, unknown>): string | undefined {
  const value = credentials.endpoint ?? credentials.apiEndpoint;
  if (typeof value === 'string') return value;
  const blob = /BlobEndpoint=([^;]+)/.exec(String(credentials.connectionString ?? ''))?.[1];
  return blob;
}
