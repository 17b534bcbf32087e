/**
 * Minifiers for the text files of a website: HTML (html-minifier-terser, with its inline styles and scripts
 * passed to the CSS and JavaScript minifiers below), CSS (lightningcss), JavaScript (esbuild) and JSON. Each
 * is conservative: whitespace that can change layout is collapsed to one space, never removed, and a file a
 * minifier cannot parse is kept as it is.
 */
import { transform as esbuild } from 'esbuild';
import { minify as minifyHtmlText } from 'html-minifier-terser';
import { transform as lightningcss } from 'lightningcss';

export function minifyCss(css: string, name = 'style.css'): string {
  const { code } = lightningcss({
    filename: name,
    code: Buffer.from(css),
    minify: true,
    errorRecovery: true,
  });
  return code.toString();
}

/** Scripts stay scripts: no `format`, so top-level names (globals other scripts may use) are never renamed. */
export async function minifyJs(js: string): Promise<string> {
  const { code } = await esbuild(js, {
    minify: true,
    loader: 'js',
    legalComments: 'inline',
    charset: 'utf8',
  });
  return code.trimEnd();
}

export async function minifyHtml(html: string): Promise<string> {
  return minifyHtmlText(html, {
    collapseWhitespace: true,
    conservativeCollapse: true,
    removeComments: true,
    keepClosingSlash: true,
    decodeEntities: false,
    minifyCSS: async (text: string, type?: string) => {
      try {
        // Inline style attributes are declaration lists: minified inside a rule, then unwrapped.
        if (type === 'inline') return minifyCss(`a{${text}}`).replace(/^a\{|\}$/g, '');
        return minifyCss(text);
      } catch {
        return text;
      }
    },
    minifyJS: async (text: string) => {
      try {
        return await minifyJs(text);
      } catch {
        return text;
      }
    },
  });
}

export function minifyJson(json: string): string {
  return JSON.stringify(JSON.parse(json));
}
