/**
 * What an idle embedded `presso serve` must not load, and how to see what a server child loaded: each of
 * these is imported where it is first needed (runtime/presso.ts, stores/open-store.ts,
 * processors/bundle/site-files.ts, http/tls.ts, outbound/guarded-client.ts), and together they were ~60 MB
 * of the idle server's RSS; each start also spends CPU on loading them (undici: ~110 modules).
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const repoRoot = resolve(import.meta.dirname, '..', '..');

/** Packages of the scaled mode, of the external stores, of website bundles and of certificate making. */
export const LAZY_PACKAGES = {
  scaled: ['pg', 'ioredis', 'bullmq'],
  stores: ['@aws-sdk/client-s3', '@aws-sdk/lib-storage', '@azure/storage-blob'],
  bundle: ['html-minifier-terser', 'clean-css', 'terser', 'lightningcss', 'esbuild'],
  svg: ['svgo', 'css-tree'],
  tls: ['selfsigned', '@peculiar/x509'],
  outbound: ['undici'],
} as const;

/** Presso's own modules that own those packages. */
export const LAZY_SOURCES = [
  'src/runtime/scaled.ts',
  'src/files/s3-file-store.ts',
  'src/stores/s3/s3-store.ts',
  'src/stores/azure/azure-store.ts',
  'src/stores/gcs/gcs-store.ts',
  'src/processors/bundle/minify.ts',
] as const;

/** NODE_OPTIONS and PRESSO_MODULE_LOG for a server child whose loaded modules go to `logPath`. */
export function moduleLogEnv(logPath: string): Record<string, string> {
  const hooks = `--import=${join(repoRoot, 'test/support/module-log.ts')}`;
  return {
    NODE_OPTIONS: [process.env.NODE_OPTIONS, hooks].filter(Boolean).join(' '),
    PRESSO_MODULE_LOG: logPath,
  };
}

/** The packages (`name` or `@scope/name`) and the repository's own files a module log lists. */
export async function readModuleLog(
  logPath: string,
): Promise<{ packages: Set<string>; sources: Set<string> }> {
  const urls = (await readFile(logPath, 'utf8')).split('\n').filter(Boolean);
  const packages = new Set<string>();
  const sources = new Set<string>();
  const prefix = `file://${repoRoot}/`;
  for (const url of urls) {
    const at = url.lastIndexOf('/node_modules/');
    if (at !== -1) {
      const [first, second] = url.slice(at + '/node_modules/'.length).split('/');
      packages.add(first!.startsWith('@') ? `${first}/${second}` : first!);
    } else if (url.startsWith(prefix)) {
      sources.add(url.slice(prefix.length));
    }
  }
  return { packages, sources };
}

/** Of the lazy packages and sources, those the log shows loaded. */
export async function lazyModulesLoaded(logPath: string): Promise<string[]> {
  const { packages, sources } = await readModuleLog(logPath);
  return [
    ...Object.values(LAZY_PACKAGES)
      .flat()
      .filter((name) => packages.has(name)),
    ...LAZY_SOURCES.filter((file) => sources.has(file)),
  ];
}
