/**
 * Azure connection strings, parsed strictly, and the blob endpoint each credential form leads to. The SDK's
 * own parser takes the first element that merely starts with a key's name and ignores anything else, so a
 * string could show one endpoint to a check and another to the SDK (`XBlobEndpoint=<public>;BlobEndpoint=
 * <loopback>`). Here every element must be a known key given once, each value has the shape of what it names,
 * and the store builds its client from these parts: what is checked is what is used.
 */
import { withoutTrailingSlashes } from '../../config/text.ts';
import { AZURE_ACCOUNT, endpointProblem, isDnsName, isSasToken } from '../name-rules.ts';

export interface AzureCredentials {
  accountName?: string;
  accountKey?: string;
  connectionString?: string;
  sasToken?: string;
}

/** Where the SDK connects and with what: the blob service URL and the account key or the SAS query. */
export interface AzureEndpoint {
  url: string;
  accountName: string;
  accountKey?: string;
  sas?: string;
  /** The credential field the host comes from, named in errors. */
  steeredBy: 'accountName' | 'connectionString';
}

const KEYS = [
  'DefaultEndpointsProtocol',
  'AccountName',
  'AccountKey',
  'EndpointSuffix',
  'BlobEndpoint',
  'SharedAccessSignature',
  // The portal's SAS connection strings name the other services' endpoints too; they are never used.
  'QueueEndpoint',
  'TableEndpoint',
  'FileEndpoint',
] as const;
type Key = (typeof KEYS)[number];

const BASE64 = /^[A-Za-z0-9+/]{1,1024}={0,2}$/;
const DEFAULT_SUFFIX = 'core.windows.net';

/** A credential field that cannot be right, named by `field` (`connectionString`, `accountName`, ...). */
export class AzureCredentialsError extends Error {
  readonly field: keyof AzureCredentials;

  constructor(field: keyof AzureCredentials, message: string) {
    super(`${field} ${message}`);
    this.field = field;
  }
}

/** The connection string's elements by key; throws AzureCredentialsError saying what is wrong with it. */
export function parseConnectionString(text: string): Map<Key, string> {
  const fail = (message: string): never => {
    throw new AzureCredentialsError('connectionString', message);
  };
  const parts = new Map<Key, string>();
  for (const element of text.split(';')) {
    if (element.trim() === '') continue;
    const equals = element.indexOf('=');
    const name = (equals === -1 ? element : element.slice(0, equals)).trim();
    const key = KEYS.find((known) => known.toLowerCase() === name.toLowerCase());
    // An element without `=` is not echoed: it could be a piece of a key.
    if (equals === -1) fail('has an element that is not Key=Value');
    else if (key === undefined)
      fail(`has an unknown element "${name.slice(0, 40)}" (known: ${KEYS.join(', ')})`);
    else if (parts.has(key)) fail(`gives ${key} more than once`);
    else parts.set(key, element.slice(equals + 1).trim());
  }
  return parts;
}

/** The endpoint and credential of any of the three credential forms; throws AzureCredentialsError. */
export function azureEndpoint(credentials: AzureCredentials): AzureEndpoint {
  if (credentials.connectionString !== undefined) return fromConnectionString(credentials.connectionString);
  const { accountName = '', accountKey, sasToken } = credentials;
  if (!AZURE_ACCOUNT.test(accountName))
    throw new AzureCredentialsError('accountName', 'must be 3 to 24 lower-case letters and digits');
  if (sasToken !== undefined && !isSasToken(sasToken))
    throw new AzureCredentialsError('sasToken', 'must be the query string of a SAS URL');
  if (accountKey !== undefined && !BASE64.test(accountKey))
    throw new AzureCredentialsError('accountKey', 'must be the base64 account key');
  return {
    url: `https://${accountName}.blob.${DEFAULT_SUFFIX}`,
    accountName,
    ...(accountKey === undefined ? {} : { accountKey }),
    ...(sasToken === undefined ? {} : { sas: sasToken.replace(/^\?/, '') }),
    steeredBy: 'accountName',
  };
}

function fromConnectionString(text: string): AzureEndpoint {
  const fail = (message: string): never => {
    throw new AzureCredentialsError('connectionString', message);
  };
  const parts = parseConnectionString(text);
  const accountName = parts.get('AccountName');
  const accountKey = parts.get('AccountKey');
  const sas = parts.get('SharedAccessSignature');
  const blobEndpoint = parts.get('BlobEndpoint');
  const suffix = parts.get('EndpointSuffix');
  const protocol = (parts.get('DefaultEndpointsProtocol') ?? 'https').toLowerCase();
  if (accountName !== undefined && !AZURE_ACCOUNT.test(accountName))
    fail('has an AccountName that is not 3 to 24 lower-case letters and digits');
  if (accountKey !== undefined && !BASE64.test(accountKey)) fail('has an AccountKey that is not base64');
  if (sas !== undefined && !isSasToken(sas))
    fail('has a SharedAccessSignature that is not the query string of a SAS URL');
  if ((accountKey === undefined) === (sas === undefined))
    fail('must give either AccountKey or SharedAccessSignature');
  if (protocol !== 'https' && protocol !== 'http')
    fail('has a DefaultEndpointsProtocol other than https or http');
  if (suffix !== undefined && !isDnsName(suffix))
    fail(
      `has an EndpointSuffix that is not a DNS suffix such as ${DEFAULT_SUFFIX} (no scheme, port or path)`,
    );
  let url: string;
  if (blobEndpoint !== undefined) {
    const problem = endpointProblem(blobEndpoint);
    if (problem !== undefined) fail(`has a BlobEndpoint that ${problem}`);
    url = withoutTrailingSlashes(blobEndpoint);
  } else {
    if (accountName === undefined) fail('needs AccountName or BlobEndpoint');
    url = `${protocol}://${accountName}.blob.${suffix ?? DEFAULT_SUFFIX}`;
  }
  if (accountKey !== undefined && accountName === undefined) fail('needs AccountName with AccountKey');
  return {
    url,
    accountName: accountName ?? accountFromUrl(url),
    ...(accountKey === undefined ? {} : { accountKey }),
    ...(sas === undefined ? {} : { sas: sas.replace(/^\?/, '') }),
    steeredBy: 'connectionString',
  };
}

/** `https://acct.blob.core.windows.net` → acct; `http://127.0.0.1:10000/acct` (emulator style) → acct. */
function accountFromUrl(url: string): string {
  const parsed = new URL(url);
  const path = parsed.pathname.split('/').find((segment) => segment !== '');
  return path ?? parsed.hostname.split('.')[0] ?? '';
}

/** The kind's name for people, in store errors. */
export const AZURE_NAME = 'Azure Blob Storage';
