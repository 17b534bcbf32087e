/** The name segment of download links: short names unchanged, long ones cut before the extension. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linkName, MAX_LINK_NAME_LENGTH } from '../../src/jobs/download-link.ts';

test('a name that fits is only percent-encoded', () => {
  assert.equal(linkName('photo 1.jpeg'), 'photo%201.jpeg');
});

test('a long name is cut before its extension, never inside an encoded character', () => {
  for (const name of [`${'a'.repeat(150)}.png`, `${'é'.repeat(80)}.webp`, `${'日本'.repeat(40)}.avif`]) {
    const link = linkName(name);
    assert.ok(link.length <= MAX_LINK_NAME_LENGTH, link);
    const decoded = decodeURIComponent(link);
    const extension = name.slice(name.lastIndexOf('.'));
    assert.ok(decoded.endsWith(extension), decoded);
    assert.ok(name.startsWith(decoded.slice(0, -extension.length)), decoded);
    // Even at 9 encoded characters per character (CJK), ten of them stay.
    assert.ok(decoded.length >= extension.length + 10, 'keeps a useful part of the name');
  }
});

test('a long name without an extension is cut to the limit', () => {
  const link = linkName('x'.repeat(300));
  assert.equal(link, 'x'.repeat(MAX_LINK_NAME_LENGTH));
});
