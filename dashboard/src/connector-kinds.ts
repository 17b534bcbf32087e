/** The credentials each store kind needs (as POST /1.0/connectors documents them), for the connector form. */

export interface CredentialField {
  name: string;
  label: string;
  secret?: boolean;
  optional?: boolean;
  multiline?: boolean;
}

export interface StoreKind {
  kind: string;
  label: string;
  /** The kind needs the bucket's region (S3, B2, Spaces). */
  region: 'required' | 'refused';
  fields: CredentialField[];
}

export const STORE_KINDS: StoreKind[] = [
  {
    kind: 's3',
    label: 'Amazon S3 (or S3-compatible)',
    region: 'required',
    fields: [
      { name: 'accessKeyId', label: 'Access key id' },
      { name: 'secretAccessKey', label: 'Secret access key', secret: true },
      { name: 'endpoint', label: 'Endpoint (S3-compatible servers only)', optional: true },
    ],
  },
  {
    kind: 'r2',
    label: 'Cloudflare R2',
    region: 'refused',
    fields: [
      { name: 'accountId', label: 'Account id' },
      { name: 'accessKeyId', label: 'Access key id' },
      { name: 'secretAccessKey', label: 'Secret access key', secret: true },
      { name: 'endpoint', label: 'Endpoint (a compatible server of your own only)', optional: true },
    ],
  },
  {
    kind: 'b2',
    label: 'Backblaze B2',
    region: 'required',
    fields: [
      { name: 'keyId', label: 'Key id' },
      { name: 'applicationKey', label: 'Application key', secret: true },
      { name: 'endpoint', label: 'Endpoint (a compatible server of your own only)', optional: true },
    ],
  },
  {
    kind: 'spaces',
    label: 'DigitalOcean Spaces',
    region: 'required',
    fields: [
      { name: 'key', label: 'Key' },
      { name: 'secret', label: 'Secret', secret: true },
      { name: 'endpoint', label: 'Endpoint (a compatible server of your own only)', optional: true },
    ],
  },
  {
    kind: 'gcs',
    label: 'Google Cloud Storage',
    region: 'refused',
    fields: [
      {
        name: 'serviceAccount',
        label: 'Service account key file (JSON)',
        secret: true,
        multiline: true,
        optional: true,
      },
      { name: 'hmacAccessId', label: 'HMAC access id (instead of the key file)', optional: true },
      { name: 'hmacSecret', label: 'HMAC secret', secret: true, optional: true },
    ],
  },
  {
    kind: 'azure',
    label: 'Azure Blob Storage',
    region: 'refused',
    fields: [
      { name: 'accountName', label: 'Account name', optional: true },
      { name: 'accountKey', label: 'Account key', secret: true, optional: true },
      { name: 'sasToken', label: 'SAS token (instead of the account key)', secret: true, optional: true },
      {
        name: 'connectionString',
        label: 'Connection string (instead of the above)',
        secret: true,
        optional: true,
      },
    ],
  },
];

/** The credentials object of the form's values: empty optional fields left out, GCS's key file parsed. */
export function credentialsOf(kind: StoreKind, values: Record<string, string>): Record<string, unknown> {
  const credentials: Record<string, unknown> = {};
  for (const field of kind.fields) {
    const value = (values[field.name] ?? '').trim();
    if (value === '') continue;
    if (kind.kind === 'gcs' && field.name === 'serviceAccount') {
      try {
        credentials[field.name] = JSON.parse(value);
      } catch {
        throw new Error('The service account key file is not valid JSON.');
      }
    } else credentials[field.name] = value;
  }
  return credentials;
}
