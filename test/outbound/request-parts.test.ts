import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationError } from '../../src/errors/catalog.ts';
import {
  describeSource,
  fileNameFor,
  normaliseHeaders,
  parseHttpUrl,
  takeCredentials,
} from '../../src/outbound/request-parts.ts';

const url = (text: string) => new URL(text);

describe('fileNameFor', () => {
  it('prefers filename* over filename', () => {
    const header = `attachment; filename="fallback.txt"; filename*=UTF-8''%E2%82%AC%20rates.txt`;
    assert.equal(fileNameFor(header, url('http://h/x.bin')), '€ rates.txt');
    assert.equal(fileNameFor(`attachment; filename*=iso-8859-1'en'%E9t%E9.txt`, url('http://h/')), 'été.txt');
  });

  it('reads quoted, escaped, bare and raw UTF-8 filename values', () => {
    assert.equal(fileNameFor('attachment; filename="a \\"b\\".txt"', url('http://h/')), 'a "b".txt');
    assert.equal(fileNameFor('inline; filename=plain.pdf', url('http://h/')), 'plain.pdf');
    const rawUtf8 = Buffer.from('attachment; filename="résumé.pdf"').toString('latin1');
    assert.equal(fileNameFor(rawUtf8, url('http://h/')), 'résumé.pdf');
  });

  it('never returns a path', () => {
    assert.equal(fileNameFor('attachment; filename="../../etc/passwd"', url('http://h/')), 'passwd');
    assert.equal(fileNameFor('attachment; filename="..\\\\win.ini"', url('http://h/')), 'win.ini');
    assert.equal(fileNameFor('attachment; filename=".."', url('http://h/a/b.txt')), 'b.txt');
  });

  it('falls back to the decoded last path segment, then empty', () => {
    assert.equal(fileNameFor(undefined, url('http://h/dir/report%20final.pdf?x=1')), 'report final.pdf');
    assert.equal(fileNameFor('attachment', url('http://h/a.png')), 'a.png');
    assert.equal(fileNameFor(undefined, url('http://h/')), '');
    assert.equal(fileNameFor(undefined, url('http://h/dir/')), '');
    assert.equal(fileNameFor(undefined, url('http://h/bad%zz')), 'bad%zz');
  });
});

describe('URL helpers', () => {
  it('accepts only absolute http(s) URLs', () => {
    assert.ok(parseHttpUrl('https://example.com/a'));
    assert.equal(parseHttpUrl('HTTP://EXAMPLE.com')?.hostname, 'example.com');
    for (const text of ['ftp://h/', 'data:,x', 'mailto:a@b', '//h/x', 'h/x', 'http://']) {
      assert.equal(parseHttpUrl(text), undefined, text);
    }
  });

  it('takes decoded credentials out of the URL', () => {
    const target = url('https://us%65r:p%40ss@h/x');
    assert.equal(takeCredentials(target), `Basic ${Buffer.from('user:p@ss').toString('base64')}`);
    assert.equal(target.href, 'https://h/x');
    assert.equal(takeCredentials(url('https://h/')), undefined);
    assert.equal(
      takeCredentials(url('https://token@h/')),
      `Basic ${Buffer.from('token:').toString('base64')}`,
    );
  });

  it('describes a source by origin and path only', () => {
    assert.equal(describeSource(url('https://u:p@h:8443/a/b?sig=1#f')), 'https://h:8443/a/b');
  });
});

describe('normaliseHeaders', () => {
  it('lower-cases names', () => {
    assert.deepEqual(normaliseHeaders({ 'X-A': '1', Accept: 'image/*' }, 'headers'), {
      'x-a': '1',
      accept: 'image/*',
    });
  });

  it('refuses invalid names, values and framing headers', () => {
    const cases: Array<Record<string, string>> = [
      { 'Bad Name': 'x' },
      { 'X-A': 'a\nb' },
      { 'Content-Length': '5' },
      { Connection: 'close' },
    ];
    for (const headers of cases) {
      assert.throws(() => normaliseHeaders(headers, 'headers'), ValidationError, JSON.stringify(headers));
    }
  });
});
