/**
 * Azure Blob Storage: an account name and key, a connection string (which also carries a custom endpoint,
 * e.g. Azurite) or an account name and a SAS token, each strictly parsed (azure-connection-string.ts) before
 * the SDK (azure-store.ts, imported on first use) sees it. Azure has no per-object ACL, and `container` is its
 * word for the bucket.
 */
import { Type } from '#typebox';
import { COMMON_HEADERS, credentialText, storeModule } from '../store-module.ts';
import { AZURE_NAME, AzureCredentialsError, azureEndpoint } from './azure-connection-string.ts';

const accountName = credentialText('storage account name (3-24 lower-case letters and digits)');

export const azureModule = storeModule({
  kind: 'azure',
  name: AZURE_NAME,
  credentials: Type.Union([
    Type.Object({ accountName, accountKey: credentialText('account key') }, { additionalProperties: false }),
    Type.Object(
      { connectionString: credentialText('connection string: known Key=Value elements, each once') },
      { additionalProperties: false },
    ),
    Type.Object({ accountName, sasToken: credentialText('SAS token') }, { additionalProperties: false }),
  ]),
  rules: {
    region: 'refused',
    acl: { default: undefined },
    headers: [...COMMON_HEADERS, 'Content-Language'],
    tags: false,
    container: true,
  },
  // A connection string carries its endpoint; it is checked with the rest of it (problems).
  endpoints: [],
  // The account name is no secret.
  hint: (credentials) => {
    try {
      return azureEndpoint(credentials).accountName;
    } catch {
      return '';
    }
  },
  problems: (credentials) => {
    try {
      azureEndpoint(credentials);
      return [];
    } catch (error) {
      if (!(error instanceof AzureCredentialsError)) throw error;
      return [{ field: error.field, message: error.message.slice(error.field.length + 1) }];
    }
  },
  open: async (credentials, agents) => {
    const { AzureStore } = await import('./azure-store.ts');
    return new AzureStore(credentials, agents);
  },
});
