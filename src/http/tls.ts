/**
 * TLS material: the configured certificate and key, or on first start of the embedded default a
 * self-signed pair generated into the data directory (mode 0600), so the service is HTTPS from the start.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface TlsMaterial {
  cert: string;
  key: string;
  certPath: string;
  generated: boolean;
}

export async function loadOrCreateTls(
  dataDir: string,
  configured: { certPath: string | undefined; keyPath: string | undefined },
  hostnames: string[],
): Promise<TlsMaterial> {
  if (configured.certPath && configured.keyPath) {
    return {
      cert: await readFile(configured.certPath, 'utf8'),
      key: await readFile(configured.keyPath, 'utf8'),
      certPath: configured.certPath,
      generated: false,
    };
  }
  const dir = join(dataDir, 'tls');
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  if (existsSync(certPath) && existsSync(keyPath)) {
    return {
      cert: await readFile(certPath, 'utf8'),
      key: await readFile(keyPath, 'utf8'),
      certPath,
      generated: false,
    };
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const names = [...new Set(['localhost', ...hostnames])];
  const altNames = [
    ...names.map((value) => ({ type: 2 as const, value })),
    { type: 7 as const, ip: '127.0.0.1' },
    { type: 7 as const, ip: '::1' },
  ];
  // Loaded only when a certificate must be made: its X.509 stack (@peculiar/*) is ~100 modules an idle
  // server that reuses its certificate never needs.
  const { default: selfsigned } = await import('selfsigned');
  const pems = await selfsigned.generate([{ name: 'commonName', value: names[0]! }], {
    notAfterDate: new Date(Date.now() + 825 * 86_400_000),
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  await writeFile(keyPath, pems.private, { mode: 0o600 });
  await writeFile(certPath, pems.cert, { mode: 0o644 });
  await chmod(keyPath, 0o600);
  return { cert: pems.cert, key: pems.private, certPath, generated: true };
}
