/** The embedded default's data directory layout, and the secrets it creates on first start. */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export function dataPaths(dataDir: string) {
  return {
    database: join(dataDir, 'presso.db'),
    files: join(dataDir, 'files'),
    work: join(dataDir, 'work'),
    /** Uploads while their request is read, one folder each (http/upload-folders.ts). */
    uploads: join(dataDir, 'work', 'uploads'),
    encryptionKey: join(dataDir, 'keys', 'encryption.key'),
  };
}

/**
 * The AES-256-GCM key for connector credentials. Generated once with mode 0600; losing it makes
 * stored credentials unreadable, so it is never regenerated over an existing file.
 */
export async function ensureEncryptionKey(path: string): Promise<{ key: Buffer; created: boolean }> {
  if (existsSync(path)) {
    const key = Buffer.from((await readFile(path, 'utf8')).trim(), 'base64');
    if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key`);
    return { key, created: false };
  }
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  await writeFile(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(path, 0o600);
  return { key, created: true };
}
