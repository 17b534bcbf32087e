/**
 * Archive links through POST /1.0/upload (the real archive, image and bundle processors): an archive must never
 * make an output hold a file from outside its job folder. A canary of random content is planted in the server's
 * data directory, four levels above the job's members folder. Refused with 422: symbolic links that are
 * absolute, that climb with `..`, or that climb through another link while their letters stay inside; hard
 * links out of the folder; in ZIP, 7z and TAR (plain and compressed), re-packed, converted to every format and
 * in deep mode; with members named `-C` so a packer that reads names as directives would change directory
 * through the link. Members named like options are packed as plain names, and links that stay inside are kept.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createArchiveProcessor } from '../../src/processors/archive/archive-processor.ts';
import { createBundleProcessor } from '../../src/processors/bundle/bundle-processor.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { type CompletedResult, download } from '../api/helpers.ts';
import { DEFAULT_SETTINGS } from '../support/host-settings.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';
import { assertNoCanary, CANARY_NAME, expectRefused, plantCanary } from './archive-canary.ts';
import {
  type Entry,
  LEXICALLY_INSIDE_ESCAPE,
  sevenZipOf,
  TO_DATA_DIR,
  tarOf,
  zipOf,
} from './hostile-archives.ts';

// TAR first: before the fix, a TAR output is where the canary leaked.
const OUTPUTS = ['tar', 'tar.gz', 'tar.bz2', 'tar.xz', 'tar.zst', 'zip', '7z'] as const;
const TARS = [undefined, 'gz', 'bz2', 'xz', 'zst'] as const;
const LINK_OUT = /links outside the archive's folder/;

describe('archive links through the API', () => {
  let presso: TestApp;
  let secret: string;
  const scratch = mkdtempSync(join(tmpdir(), 'presso-archive-links-'));
  let made = 0;
  /** A fresh folder per archive, so names never collide. */
  const dir = () => {
    const path = join(scratch, `a${made++}`);
    mkdirSync(path);
    return path;
  };
  const canary = () => ({ secret, scratch });

  before(async () => {
    const images = createImageProcessor();
    presso = await buildTestApp({
      processors: [
        images,
        createArchiveProcessor((kind) => (kind === 'image' ? images : undefined)),
        createBundleProcessor(images, {}, DEFAULT_SETTINGS),
      ],
    });
    secret = plantCanary(presso.dataDir);
  });
  after(async () => {
    await presso?.close();
    execFileSync('rm', ['-rf', scratch]);
  });

  /** Each way a symbolic link leaves the folder; the data directory holds the canary. */
  const escapingLinks = (): Record<string, Entry[]> => ({
    absolute: [{ name: 'up', symlink: join(presso.dataDir, CANARY_NAME) }],
    climbing: [{ name: 'up', symlink: `${TO_DATA_DIR}/${CANARY_NAME}` }],
    'climbing through another link': LEXICALLY_INSIDE_ESCAPE,
  });
  const plain = { name: 'notes.txt', file: 'notes\n' };

  for (const kind of ['absolute', 'climbing', 'climbing through another link']) {
    test(`ZIP and 7z: a ${kind} symbolic link is refused`, async () => {
      const entries = [plain, ...escapingLinks()[kind]!];
      await expectRefused(presso, zipOf(dir(), entries), {}, LINK_OUT, canary());
      await expectRefused(presso, sevenZipOf(dir(), entries), {}, LINK_OUT, canary());
    });

    test(`TAR, plain and compressed: a ${kind} symbolic link is refused`, async () => {
      for (const compressor of TARS) {
        const name = compressor === undefined ? 'links.tar' : `links.tar.${compressor}`;
        const tar = tarOf(dir(), [plain, ...escapingLinks()[kind]!], name, compressor);
        await expectRefused(presso, tar, {}, LINK_OUT, canary());
      }
    });
  }

  test('TAR, plain and compressed: hard links out of the folder (absolute, climbing, through a link) are refused', async () => {
    const hardLinks: Entry[][] = [
      [{ name: 'h', hardlink: join(presso.dataDir, CANARY_NAME) }],
      [{ name: 'h', hardlink: `${TO_DATA_DIR}/${CANARY_NAME}` }],
      [
        { name: 'inside', symlink: '.' },
        { name: 'h', hardlink: `inside/${plain.name}` },
      ],
    ];
    for (const compressor of TARS) {
      for (const links of hardLinks) {
        const name = compressor === undefined ? 'hard.tar' : `hard.tar.${compressor}`;
        const tar = tarOf(dir(), [plain, ...links], name, compressor);
        await expectRefused(presso, tar, {}, /hard link|links outside/, canary());
      }
    }
  });

  // The audit's attack: in a packer's list of names, `-C` followed by the link's name changes directory into the
  // data directory, and the next name, the archive's own `canary.txt`, is then packed from there.
  const dashC = (before: Entry[], link: Entry): Entry[] => [
    ...before,
    { name: '-C', file: 'a member named -C\n' },
    link,
    { name: CANARY_NAME, file: 'not the canary\n' },
  ];

  test('a ZIP with `-C` and a climbing link is refused in every output format and in deep mode', async () => {
    const zip = zipOf(dir(), dashC([], { name: 'up', symlink: TO_DATA_DIR }));
    for (const format of OUTPUTS) {
      await expectRefused(presso, zip, { archive: { format } }, LINK_OUT, canary());
    }
    await expectRefused(presso, zip, { archive: { deep: true } }, LINK_OUT, canary());
    await expectRefused(presso, zip, { archive: { deep: true, format: 'tar.xz' } }, LINK_OUT, canary());
  });

  test('a TAR with `-C` and a link climbing through another link is refused in every output format and in deep mode', async () => {
    const [folder, back, climber] = LEXICALLY_INSIDE_ESCAPE as [Entry, Entry, Entry];
    const tar = tarOf(dir(), dashC([folder, back], climber), 'dash-c.tar.gz', 'gz');
    // A TAR to a TAR is re-packed from its members (where names meet the packer) only in deep mode.
    for (const format of OUTPUTS) {
      await expectRefused(presso, tar, { archive: { format, deep: true } }, LINK_OUT, canary());
      await expectRefused(presso, tar, { archive: { format } }, LINK_OUT, canary());
    }
  });

  test('deep mode: an archive inside an archive with a climbing link is refused', async () => {
    const inner = zipOf(
      dir(),
      [plain, { name: 'up', symlink: `${TO_DATA_DIR}/${CANARY_NAME}` }],
      'inner.zip',
    );
    const outer = dir();
    execFileSync('cp', [inner, join(outer, 'inner.zip')]);
    writeFileSync(join(outer, 'readme.txt'), 'outer\n');
    execFileSync('zip', ['-q', 'outer.zip', 'inner.zip', 'readme.txt'], { cwd: outer });
    await expectRefused(presso, join(outer, 'outer.zip'), { archive: { deep: true } }, LINK_OUT, canary());
  });

  test('a website bundle with a climbing link is refused', async () => {
    const site = zipOf(
      dir(),
      [
        { name: 'index.html', file: '<!doctype html><title>site</title><p>hello</p>\n' },
        { name: 'up', symlink: `${TO_DATA_DIR}/${CANARY_NAME}` },
      ],
      'site.zip',
    );
    await expectRefused(presso, site, {}, LINK_OUT, canary());
  });

  test('members named like options and list files are packed as plain names in every output format', async () => {
    const entries: Entry[] = [
      { name: '-C', file: 'dash C\n' },
      { name: 'sub', dir: true },
      { name: 'sub/x', file: 'inner x\n' },
      { name: 'x', file: 'outer x\n' },
      { name: '--', file: 'dash dash\n' },
      { name: '-T', file: 'dash T\n' },
      { name: '@list', file: 'at list\n' },
      { name: '--files-from=list', file: 'files from\n' },
      { name: 'list', file: 'sub/x\n' },
      { name: '*', file: 'star\n' },
    ];
    const zip = zipOf(dir(), entries);
    for (const format of OUTPUTS) {
      const response = await presso.upload(zip, { archive: { format } }, undefined, 'names.zip');
      assert.equal(response.status, 200, `${format}: ${await response.clone().text()}`);
      const result = (await response.json()) as CompletedResult;
      const out = dir();
      writeFileSync(join(out, `names.${format}`), await download(presso, result));
      mkdirSync(join(out, 'x'));
      execFileSync('bsdtar', ['-x', '-f', join(out, `names.${format}`), '-C', join(out, 'x')]);
      for (const entry of entries) {
        if ('file' in entry) {
          assert.equal(
            readFileSync(join(out, 'x', entry.name), 'utf8'),
            entry.file,
            `${format}: ${entry.name}`,
          );
        }
      }
      const names = execFileSync('bsdtar', ['-t', '-f', join(out, `names.${format}`)]).toString();
      const listed = names
        .split('\n')
        .filter((n) => n !== '' && n !== 'sub/')
        .map((n) => n.replace(/^\.\//, ''));
      assert.deepEqual(
        listed.sort(),
        entries
          .filter((e) => 'file' in e)
          .map((e) => e.name)
          .sort(),
        format,
      );
    }
  });

  test('symbolic links that stay inside the folder are kept, in ZIP, 7z and TAR', async () => {
    const entries: Entry[] = [
      plain,
      { name: 'docs', dir: true },
      { name: 'docs/readme.txt', file: 'readme\n' },
      { name: 'to-notes', symlink: 'notes.txt' },
      { name: 'docs/up-to-notes', symlink: '../notes.txt' },
      { name: 'docs-link', symlink: 'docs' },
    ];
    const inputs = [
      zipOf(dir(), entries),
      sevenZipOf(dir(), entries),
      tarOf(dir(), entries, 'kept.tar.xz', 'xz'),
    ];
    for (const input of inputs) {
      for (const format of ['zip', 'tar'] as const) {
        const response = await presso.upload(
          input,
          { archive: { format } },
          undefined,
          input.split('/').at(-1),
        );
        assert.equal(response.status, 200, `${input} to ${format}: ${await response.clone().text()}`);
        const result = (await response.json()) as CompletedResult;
        const bytes = await download(presso, result);
        assertNoCanary(bytes, secret, scratch);
        const out = dir();
        writeFileSync(join(out, 'out'), bytes);
        execFileSync('bsdtar', ['-x', '-f', join(out, 'out'), '-C', out]);
        assert.equal(readlinkSync(join(out, 'to-notes')), 'notes.txt');
        assert.equal(readlinkSync(join(out, 'docs/up-to-notes')), '../notes.txt');
        assert.equal(readlinkSync(join(out, 'docs-link')), 'docs');
        assert.equal(readFileSync(join(out, 'docs/readme.txt'), 'utf8'), 'readme\n');
      }
    }
  });
});
