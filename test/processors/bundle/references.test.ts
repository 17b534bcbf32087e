/** Reference rewriting for converted images: resolution like a browser's, srcset, CSS url(), <picture>. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  resolveReference,
  rewriteCss,
  rewriteHtml,
  wrapInPicture,
} from '../../../src/processors/bundle/references.ts';

const renames = new Map([
  ['img/a.png', 'img/a.webp'],
  ['img/b c.jpg', 'img/b c.webp'],
]);

test('references resolve from the file that holds them; external, data and fragment URLs do not', () => {
  assert.equal(resolveReference('docs/page.html', '../img/a.png?v=2#x'), 'img/a.png');
  assert.equal(resolveReference('index.html', '/img/a.png'), 'img/a.png');
  assert.equal(resolveReference('index.html', 'img/b%20c.jpg'), 'img/b c.jpg');
  for (const url of [
    'https://example.com/a.png',
    '//cdn/a.png',
    'data:image/png;base64,xx',
    '#top',
    'mailto:a@b',
    '../../out.png',
  ]) {
    assert.equal(resolveReference('index.html', url), undefined, url);
  }
});

test('HTML: src, srcset and style url() are rewritten, with queries kept and other URLs untouched', () => {
  const html =
    '<img src="img/a.png?v=1" srcset="img/a.png 1x, img/b%20c.jpg 2x, https://x/img/a.png 3x">' +
    '<div style="background:url(\'img/a.png\')"></div><a href="img/other.png">o</a>';
  assert.equal(
    rewriteHtml(html, 'index.html', renames),
    '<img src="img/a.webp?v=1" srcset="img/a.webp 1x, img/b%20c.webp 2x, https://x/img/a.png 3x">' +
      '<div style="background:url(\'img/a.webp\')"></div><a href="img/other.png">o</a>',
  );
});

test('CSS url() resolves from the style sheet', () => {
  assert.equal(
    rewriteCss('a{background:url("../img/a.png")}', 'css/site.css', renames),
    'a{background:url("../img/a.webp")}',
  );
  assert.equal(
    rewriteCss('a{background:url(img/a.png)}', 'css/site.css', renames),
    'a{background:url(img/a.png)}',
  );
});

test('<picture>: converted images get a source, others and already wrapped ones stay', () => {
  const html = '<img src="img/a.png"><img src="img/z.png"><picture><img src="img/a.png"></picture>';
  assert.equal(
    wrapInPicture(html, 'index.html', renames, 'image/webp'),
    '<picture><source type="image/webp" srcset="img/a.webp"><img src="img/a.png"></picture><img src="img/z.png"><picture><img src="img/a.png"></picture>',
  );
});
