/**
 * The scans that take links out of LibreOffice's copy, on the spellings a hostile document may use:
 * namespaces bound to other prefixes, character references, `>` inside values, links inside comments (not
 * links), relationships used as hyperlinks or as pictures, sub-document folders, UTF-16 parts and
 * encodings LibreOffice would read otherwise, RTF instructions split or escaped. The pathological inputs
 * run in a child process with a hang guard: a scan that backtracks would block its thread.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { dropExternalLinks, staysInPackage } from '../../../src/processors/document/external-links.ts';
import { dropRtfFileFields } from '../../../src/processors/document/rtf-links.ts';
import { xmlEvents } from '../../../src/processors/document/xml-scan.ts';
import type { ZipEntry } from '../../../src/processors/document/zip.ts';
import { scaledMs } from '../../support/time-scale.ts';

const part = (name: string, data: string | Buffer): ZipEntry => ({
  name,
  data: typeof data === 'string' ? Buffer.from(data) : data,
  time: 0,
  date: 0x21,
});
const textOf = (entries: ZipEntry[], name: string) =>
  entries.find((e) => e.name === name)!.data.toString('utf8');
const ODF =
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:xlink="http://www.w3.org/1999/xlink"';
const content = (body: string) => `<?xml version="1.0" encoding="UTF-8"?><doc ${ODF}>${body}</doc>`;
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

describe('external links', () => {
  test('the scan resolves rebound prefixes, references and quotes, and skips comments and CDATA', () => {
    const xml =
      '<r xmlns:a="urn:x"><!-- <a:no href="c"/> --><![CDATA[<a:no/>]]>' +
      `<a:e  b = 'x>y' a:c="&#102;&amp;&lt;"/><a:e xmlns:a="urn:y"/></r>`;
    const starts = [...xmlEvents(xml)].filter((e) => e.kind === 'start');
    assert.deepEqual(
      starts.map((e) => [
        e.name.local,
        e.name.uri,
        e.attributes.map((a) => [a.name.qualified, a.name.uri, a.value]),
      ]),
      [
        ['r', undefined, []],
        [
          'e',
          'urn:x',
          [
            ['b', undefined, 'x>y'],
            ['a:c', 'urn:x', 'f&<'],
          ],
        ],
        ['e', 'urn:y', []],
      ],
    );
    assert.equal([...xmlEvents('<a><!DOCTYPE x></a>')].at(-1)?.kind, 'doctype');
    assert.throws(() => [...xmlEvents('<a b="1></a>')]);
    assert.throws(() => [...xmlEvents('<a b="&bogus;"/>')]);
    // A repeated attribute, by name or through two prefixes of one namespace: which one a reader keeps is unknown.
    assert.throws(() => [...xmlEvents('<a TargetMode="Internal" TargetMode="External"/>')]);
    assert.throws(() => [...xmlEvents('<a xmlns:p="urn:x" xmlns:q="urn:x" p:b="1" q:b="2"/>')]);
  });

  test('staysInPackage: parts stay; URLs, drives, absolute, network and climbing paths leave', () => {
    for (const inside of ['Pictures/a.png', './Object 1', '#Slide 2', '../Pictures/a.png', ''])
      assert.ok(staysInPackage(inside, 'Object 1'), inside);
    for (const outside of [
      'file:///etc/x',
      'C:\\x',
      '/etc/x',
      '//host/x',
      '\\\\host\\x',
      '../../x',
      '%2e%2e/%2e%2e/x',
    ])
      assert.ok(!staysInPackage(outside, 'Object 1'), outside);
  });

  test('ODF: linked frames go whole, other links with their element; hyperlinks and parts stay', async () => {
    const body =
      '<text:p>a<draw:frame><draw:image xlink:href="file:///x.png"/><draw:image xlink:href="Pictures/r.png"/></draw:frame></text:p>' +
      '<text:p>b<draw:frame><draw:image xlink:href="Pictures/ok.png"/></draw:frame></text:p>' +
      '<text:section><text:section-source xlink:href="/etc/passwd"></text:section-source><text:p>kept</text:p></text:section>' +
      '<text:p><text:a xlink:href="file:///etc/passwd">link</text:a></text:p>' +
      '<draw:image xmlns:zz="http://www.w3.org/1999/xlink" zz:href="&#102;ile:///y.png"/>' +
      '<text:p xmlns:xi="http://www.w3.org/2001/XInclude"><xi:include href="file:///z"/></text:p>';
    const entries = [part('content.xml', content(body)), part('Object 1/content.xml', content(body))];
    assert.equal(await dropExternalLinks(entries), 8);
    const expected = content(
      '<text:p>a</text:p><text:p>b<draw:frame><draw:image xlink:href="Pictures/ok.png"/></draw:frame></text:p>' +
        '<text:section><text:p>kept</text:p></text:section>' +
        '<text:p><text:a xlink:href="file:///etc/passwd">link</text:a></text:p>' +
        '<text:p xmlns:xi="http://www.w3.org/2001/XInclude"></text:p>',
    );
    assert.equal(textOf(entries, 'content.xml'), expected);
    assert.equal(textOf(entries, 'Object 1/content.xml'), expected);
  });

  test('OOXML: external and URL targets go; a hyperlink stays only while used as a hyperlink', async () => {
    const rels =
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      `<Relationship Id="rId1" Type="${REL}/image" Target="media/a.png"/>` +
      `<Relationship Id="rId2" Type="${REL}/image" Target="file:///x.png" TargetMode="External"/>` +
      `<Relationship Id="rId3" Type="${REL}/hyperlink" Target="https://example.org" TargetMode="External"/>` +
      `<Relationship Id="rId4" Type="${REL}/hyperlink" Target="file:///y.png" TargetMode="External"></Relationship>` +
      `<Relationship Id="rId5" Type="${REL}/image" Target="file:///z.png"/>` +
      `<Relationship Id="rId6" Type="${REL}/image" Target="/word/media/b.png"/></Relationships>`;
    const document =
      `<w:document xmlns:w="urn:w" xmlns:q="${REL}" xmlns:a="urn:a"><w:hyperlink q:id="rId3"/>` +
      '<w:hyperlink q:id="rId4"/><a:blip q:link="rId4"/></w:document>';
    const entries = [part('word/document.xml', document), part('word/_rels/document.xml.rels', rels)];
    assert.equal(await dropExternalLinks(entries), 3);
    const kept = [...textOf(entries, 'word/_rels/document.xml.rels').matchAll(/Id="(rId\d)"/g)].map(
      (m) => m[1],
    );
    assert.deepEqual(kept, ['rId1', 'rId3', 'rId6']);
    assert.ok(!textOf(entries, 'word/_rels/document.xml.rels').includes('</Relationship>'));
  });

  test('UTF-16 parts are scanned and written back in UTF-16; other encodings and DTDs are refused', async () => {
    const utf16 = (body: string) => `\ufeff${content(body).replace('UTF-8', 'UTF-16')}`;
    const entries = [
      part('content.xml', Buffer.from(utf16('<draw:image xlink:href="file:///x"/>'), 'utf16le')),
    ];
    assert.equal(await dropExternalLinks(entries), 1);
    assert.equal(entries[0]!.data.toString('utf16le'), utf16(''));
    const refused = [
      Buffer.from(content('').replace('UTF-8', 'UTF-7')),
      Buffer.from(content(''), 'utf16le'), // no byte-order mark
      Buffer.from(`<!DOCTYPE d [<!ENTITY e SYSTEM "file:///etc/passwd">]>${content('&e;')}`),
      Buffer.from('<doc><unclosed attr="x></doc>'),
    ];
    for (const data of refused)
      await assert.rejects(dropExternalLinks([part('content.xml', data)]), /content\.xml/);
  });

  test('RTF: file fields go in every spelling, other fields and \\bin data stay', async () => {
    const field = (instruction: string) => `{\\field{\\*\\fldinst ${instruction}}{\\fldrslt r}}`;
    const fileFields = [
      'INCLUDEPICTURE "file:///x.png" \\\\d',
      '{INCLUDE}{PICTURE} "/x.png"',
      '\\u73?NCLUDEPICTURE "/x.png"',
      '\\\'49NCLUDETEXT "/x"',
      'includepicture "/x"',
      // Nested: the inner instruction goes, the outer (now empty) stays.
      '{\\*\\fldinst IMPORT "/x"}',
    ];
    const kept = [field('PAGE'), field('HYPERLINK "https://example.org"'), '{\\pict\\bin4 }{}\\}'];
    const rtf = Buffer.from(`{\\rtf1 ${[...fileFields.map(field), ...kept].join('')}}`, 'latin1');
    const { data, dropped } = await dropRtfFileFields(rtf);
    assert.equal(dropped, fileFields.length);
    const written = data.toString('latin1');
    for (const word of ['INCLUDE', 'NCLUDE', 'PICTURE', 'IMPORT', 'include', "\\'49"])
      assert.ok(!written.includes(word), word);
    for (const field of kept) assert.ok(written.includes(field), field);
    assert.equal(
      written.split('{\\fldrslt r}').length - 1,
      fileFields.length + 2,
      'every cached result stays',
    );
  });

  test("a long scan stops at its next turn once the job's signal is aborted", async () => {
    const stopped = AbortSignal.abort(new Error('stopped'));
    const many = content('<text:p/>'.repeat(50_000));
    await assert.rejects(dropExternalLinks([part('content.xml', many)], stopped), /stopped/);
    const long = Buffer.from(`{\\rtf1 ${'x'.repeat(3_000_000)}}`, 'latin1');
    await assert.rejects(dropRtfFileFields(long, stopped), /stopped/);
  });

  test('pathological parts are scanned in linear time', () => {
    // A child process: a scan that backtracks or copies per element would block its thread, and only a
    // process limit can stop it. The limit is a last-resort hang guard, not a timing assertion.
    const module = (name: string) =>
      JSON.stringify(new URL(`../../../src/processors/document/${name}.ts`, import.meta.url).href);
    const script = `
      import { dropExternalLinks } from ${module('external-links')};
      import { dropRtfFileFields } from ${module('rtf-links')};
      const e = (name, text) => ({ name, data: Buffer.from(text), time: 0, date: 0 });
      const declarations = Array.from({ length: 20000 }, (_, i) => 'xmlns:p' + i + '="urn:' + i + '"').join(' ');
      const inputs = [
        '<a ' + 'xlink:href="x" '.repeat(150000),
        '<r ' + declarations + '>' + '<e xmlns:q="urn:q" xlink:href="x"/>'.repeat(100000) + '</r>',
        '<r>' + '<e xmlns:q="urn:q">'.repeat(100000) + '</e>'.repeat(100000) + '</r>',
        '<r>' + '<!--'.repeat(200000),
      ];
      for (const text of inputs) { try { await dropExternalLinks([e('content.xml', text)]); } catch {} }
      await dropRtfFileFields(Buffer.from('{\\\\fldinst '.repeat(100000) + 'x' + '}'.repeat(100000)));
      await dropRtfFileFields(Buffer.from('{' + '\\\\u73?'.repeat(200000)));
      process.stdout.write('done');`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: scaledMs(120_000),
    });
    assert.equal(run.signal, null, 'the scan did not finish');
    assert.equal(run.stdout, 'done', run.stderr);
  });
});
