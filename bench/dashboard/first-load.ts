/**
 * What a browser downloads to open the dashboard the first time: index.html, the scripts it loads (entry and
 * modulepreload links) with every chunk they import statically, and the stylesheets; each raw, gzip -9 and
 * brotli 11 (the forms the API process serves, src/http/routes/dashboard.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export interface Sizes {
  raw: number;
  gzip: number;
  brotli: number;
}

export interface FirstLoad {
  scripts: string[];
  styles: string[];
  js: Sizes;
  css: Sizes;
  html: Sizes;
}

function sizes(bytes: Buffer): Sizes {
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

const sum = (all: Sizes[]): Sizes => ({
  raw: all.reduce((t, s) => t + s.raw, 0),
  gzip: all.reduce((t, s) => t + s.gzip, 0),
  brotli: all.reduce((t, s) => t + s.brotli, 0),
});

/** `/dashboard/assets/x.js` -> `assets/x.js`. */
const local = (href: string) => href.replace(/^\/dashboard\//, '');

export function measureFirstLoad(dir: string): FirstLoad {
  const html = readFileSync(join(dir, 'index.html'));
  const text = html.toString('utf8');
  const scripts = new Set<string>();
  for (const m of text.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)) scripts.add(local(m[1]!));
  for (const m of text.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g))
    scripts.add(local(m[1]!));
  const styles = [...text.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) =>
    local(m[1]!),
  );
  // Chunks imported statically by a loaded chunk load with it (Vite writes `from"./x.js"` / `import"./x.js"`).
  const queue = [...scripts];
  while (queue.length > 0) {
    const file = queue.shift()!;
    const code = readFileSync(join(dir, file), 'utf8');
    for (const m of code.matchAll(/(?:from|import)\s*["']\.\/([\w.-]+\.js)["']/g)) {
      const chunk = `assets/${m[1]}`;
      if (!scripts.has(chunk)) {
        scripts.add(chunk);
        queue.push(chunk);
      }
    }
  }
  const read = (file: string) => sizes(readFileSync(join(dir, file)));
  return {
    scripts: [...scripts],
    styles,
    js: sum([...scripts].map(read)),
    css: sum(styles.map(read)),
    html: sizes(html),
  };
}

/** The budget: under 200 KB of JavaScript, compressed, on the first load. */
export const FIRST_LOAD_JS_BUDGET = 200 * 1000;
