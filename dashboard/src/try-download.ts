/** Downloads of Try-it results: which outputs the page may read, and "download all" as one ZIP. */
import type { Job } from './api.ts';
import { zipStore } from './zip.ts';

/**
 * Outputs on this server (download links) can be shown and zipped; an output written to an external store
 * is on another origin, which the page's Content-Security-Policy rightly does not let it read: it is linked.
 */
export function sameOrigin(url: string | undefined): url is string {
  if (!url) return false;
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

export function saveBlob(blob: Blob, name: string): void {
  const href = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = href;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the blob; it can go once the click is handled.
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

export async function downloadAll(items: { job?: Partial<Job> }[]): Promise<void> {
  const readable = items.filter((item) => sameOrigin(item.job?.url));
  if (readable.length === 0) throw new Error('No output is on this server: the store holds them.');
  const entries = await Promise.all(
    readable.map(async (item) => {
      const response = await fetch(item.job!.url!, { credentials: 'same-origin' });
      if (!response.ok)
        throw new Error(`${item.job?.output?.name}: the download answered ${response.status}.`);
      return {
        name: item.job?.output?.name ?? `${item.job?.id}`,
        bytes: new Uint8Array(await response.arrayBuffer()),
      };
    }),
  );
  saveBlob(
    new Blob([zipStore(entries) as Uint8Array<ArrayBuffer>], { type: 'application/zip' }),
    'presso-outputs.zip',
  );
}
