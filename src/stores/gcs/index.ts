/**
 * Google Cloud Storage: a service account through the JSON API (gcs-store.ts), or HMAC keys through GCS's
 * S3-compatible XML API, as a preset of the one S3 store (../s3/presets.ts `gcs`).
 */
import { Type } from '#typebox';
import { s3Credentials } from '../s3/index.ts';
import { COMMON_HEADERS, credentialText, endpointOverride, maskedId, storeModule } from '../store-module.ts';
import { GCS_NAME } from './json-api.ts';

export const gcsModule = storeModule({
  kind: 'gcs',
  name: GCS_NAME,
  credentials: Type.Union([
    Type.Object(
      {
        serviceAccount: Type.Object(
          {
            client_email: credentialText('service account e-mail'),
            private_key: credentialText('PEM private key'),
            project_id: Type.Optional(credentialText('project id')),
          },
          { additionalProperties: true, description: 'the service-account key file (JSON)' },
        ),
        apiEndpoint: endpointOverride,
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        hmacAccessId: credentialText('HMAC access id'),
        hmacSecret: credentialText('HMAC secret'),
        endpoint: endpointOverride,
      },
      { additionalProperties: false, description: 'HMAC keys, used through the S3-compatible XML API' },
    ),
  ]),
  rules: {
    region: 'refused',
    acl: {
      default: 'publicRead',
      values: [
        'authenticatedRead',
        'bucketOwnerFullControl',
        'bucketOwnerRead',
        'private',
        'projectPrivate',
        'publicRead',
      ],
    },
    headers: [...COMMON_HEADERS, 'Content-Language'],
    tags: false,
  },
  endpoints: ['apiEndpoint', 'endpoint'],
  // A service account's e-mail is no secret; an HMAC access id is masked like a key id.
  hint: (credentials) => {
    const account = credentials.serviceAccount;
    if (account !== null && typeof account === 'object' && 'client_email' in account)
      return String(account.client_email ?? '');
    return maskedId(String(credentials.hmacAccessId ?? ''));
  },
  open: async (credentials, agents) => {
    if (typeof credentials.hmacAccessId === 'string') {
      const { S3Store } = await import('../s3/s3-store.ts');
      return new S3Store('gcs', s3Credentials('gcs', credentials, ['hmacAccessId', 'hmacSecret']), agents);
    }
    const { GcsStore, gcsCredentials } = await import('./gcs-store.ts');
    return new GcsStore(gcsCredentials(credentials), agents);
  },
});
