/**
 * Tells a website bundle from any other ZIP: its root, or its single top-level folder, holds `index.html`.
 * Only the central directory is read (yauzl, lazily), never a member's data.
 */
import yauzl from 'yauzl';

/** Central directories longer than this are not read for the check (a site has far fewer files). */
const MAX_ENTRIES = 100_000;

export function isSiteZip(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    yauzl.open(path, { lazyEntries: true, autoClose: true, validateEntrySizes: false }, (error, zip) => {
      if (error || zip === undefined || zip.entryCount > MAX_ENTRIES) return resolve(false);
      const tops = new Set<string>();
      let rootIndex = false;
      const nestedIndex = new Set<string>();
      zip.on('entry', (entry: yauzl.Entry) => {
        const name = entry.fileName.replace(/^\.\//, '');
        const slash = name.indexOf('/');
        tops.add(slash < 0 ? name : name.slice(0, slash));
        if (name.toLowerCase() === 'index.html') rootIndex = true;
        if (slash > 0 && name.slice(slash + 1).toLowerCase() === 'index.html')
          nestedIndex.add(name.slice(0, slash));
        zip.readEntry();
      });
      zip.on('end', () => resolve(rootIndex || (tops.size === 1 && nestedIndex.has([...tops][0]!))));
      zip.on('error', () => resolve(false));
      zip.readEntry();
    });
  });
}
