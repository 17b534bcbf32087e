/** The connector key: AES-256-GCM key for stored credentials, given by the operator or kept in the data directory. */
import { type Loaded, optionalStr, section } from '../config/env.ts';
import { ConfigError } from '../errors/catalog.ts';

export const connectorsConfig = section(
  {
    key: optionalStr('PRESSO_CONNECTOR_KEY', {
      doc:
        'Base64 of the 32-byte key that encrypts connector credentials and the secrets of unfinished jobs ' +
        '(unset: generated once in the data directory, keys/encryption.key, mode 0600; losing it makes stored ' +
        'connectors unreadable and fails the queued jobs that carry secrets)',
    }),
  },
  ({ key }) => {
    if (key === undefined) return { key: undefined };
    const bytes = Buffer.from(key, 'base64');
    if (bytes.length !== 32)
      throw new ConfigError(`PRESSO_CONNECTOR_KEY must be the base64 of 32 bytes, got ${bytes.length}`);
    return { key: bytes };
  },
);

export type ConnectorsConfig = Loaded<typeof connectorsConfig>;
