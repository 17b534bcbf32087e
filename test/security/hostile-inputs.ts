/**
 * Hostile inputs of every kind that try to make a tool read a file outside the job: archive links that
 * climb out (ZIP, 7z, TAR, with bsdtar's `-C` directive as a member name), office documents whose picture
 * is a `file:///` link, SVGs with external references (href, xlink:href, XInclude, an external entity),
 * playlists and concat lists passed off as media, MP4s whose samples live in another file, and PDFs that
 * read files (PostScript, external streams).
 * Each names the canary it aims at; the canary test (canary.test.ts) sends them all through the API.
 * Other engineers add their findings here: one entry per attack, built from `CanaryTargets` alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { externalSamples, urlReference } from '../support/hostile-media.ts';
import { makeClip } from '../support/media.ts';
import {
  docx,
  odtLinking,
  relationship,
  relationships,
  rtf,
  wordPicture,
  xlsxPicture,
} from './office-link-documents.ts';

/** Files planted where no job may read them; each holds its own random token. */
export interface Canary {
  /** Absolute path of the planted file. */
  path: string;
  /** The random text inside it (a JPEG canary carries it in a comment segment). */
  token: string;
}

export interface CanaryTargets {
  /** In the server's data directory (beside its database, keys and TLS pair). */
  dataDir: Canary;
  /** The same, as a JPEG (what an office picture link or an SVG image would draw). */
  dataDirJpeg: Canary;
  /** In /etc. */
  etc: Canary;
  /** In another job's working folder. */
  otherJob: Canary;
  /** The server's data directory: relative links climb there from a job's folder. */
  dataDirPath: string;
}

export interface HostileInput {
  /** What the attack is, for test names. */
  name: string;
  /** The upload's file name and bytes. */
  fileName: string;
  bytes: Buffer;
  /** The request's `data` part. */
  params: Record<string, unknown>;
  /** The canaries it aims at. */
  aims: Canary[];
}

const run = (cwd: string, command: string, args: string[]) =>
  execFileSync(command, args, { cwd, stdio: 'pipe' });

/**
 * A folder with a file named `-C`, a link `link` to `target`, and a decoy named like the canary: bsdtar's
 * `-T` list of the members is then `-C`, `link`, `<canary>`, which makes it change into the link and pack
 * the real canary. Unpacked in `<job>/process/members`, `../../../..` is the data directory.
 */
function linkTree(dir: string, target: string, canaryName: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '-C'), 'x\n');
  symlinkSync(target, join(dir, 'link'));
  writeFileSync(join(dir, canaryName), 'decoy\n');
  return dir;
}

function archiveAttacks(dir: string, targets: CanaryTargets): HostileInput[] {
  const attacks: HostileInput[] = [];
  const cases: [string, string, Canary][] = [
    ['absolute link to the data directory', targets.dataDirPath, targets.dataDir],
    ['link climbing to the data directory', '../../../..', targets.dataDir],
    ['absolute link to /etc', dirname(targets.etc.path), targets.etc],
    ['link to another job', dirname(targets.otherJob.path), targets.otherJob],
  ];
  for (const [index, [what, target, canary]] of cases.entries()) {
    const tree = linkTree(join(dir, `tree-${index}`), target, basename(canary.path));
    const members = ['-C', 'link', basename(canary.path)];
    const zip = join(dir, `links-${index}.zip`);
    run(tree, 'zip', ['-q', '-y', zip, '--', ...members]);
    const sevenZip = join(dir, `links-${index}.7z`);
    run(tree, '7zz', ['a', '-bd', '-snl', sevenZip, '--', ...members]);
    const tar = join(dir, `links-${index}.tar`);
    // bsdtar's own command line reads `-C` as its directive too: the member is added as ./-C and renamed.
    run(tree, 'bsdtar', ['-cf', tar, '-s', ',^\\./-C$,-C,', './-C', ...members.slice(1)]);
    for (const [format, path] of [
      ['zip', zip],
      ['7z', sevenZip],
      ['tar', tar],
    ] as const) {
      attacks.push({
        name: `${format}: ${what}, then a "-C" member, packed as TAR`,
        fileName: basename(path),
        bytes: readBytes(path),
        params: { archive: { format: 'tar', deep: format === 'tar' } },
        aims: [canary],
      });
    }
    attacks.push({
      name: `zip: ${what}, deep mode to ZIP`,
      fileName: basename(zip),
      bytes: readBytes(zip),
      params: { archive: { deep: true } },
      aims: [canary],
    });
  }
  return attacks;
}

function readBytes(path: string): Buffer {
  return readFileSync(path);
}

/** A DOCX whose one picture is an external relationship to `url` (`TargetMode="External"`). */
const docxLinking = (url: string) =>
  docx(wordPicture('r:link="rIdLinked"'), relationships(relationship('rIdLinked', 'image', url)));

function documentAttacks(targets: CanaryTargets): HostileInput[] {
  const url = `file://${targets.dataDirJpeg.path}`;
  return [
    {
      name: 'odt: picture linked to file:///, converted to PDF',
      fileName: 'linked.odt',
      bytes: odtLinking(url),
      params: { document: { format: 'pdf' } },
      aims: [targets.dataDirJpeg],
    },
    {
      name: 'docx: picture linked to file:/// (TargetMode="External"), converted to PDF',
      fileName: 'linked.docx',
      bytes: docxLinking(url),
      params: { document: { format: 'pdf' } },
      aims: [targets.dataDirJpeg],
    },
    {
      name: 'rtf: INCLUDEPICTURE field of a local file, converted to PDF',
      fileName: 'field.rtf',
      bytes: rtf(`{\\field{\\*\\fldinst INCLUDEPICTURE "${targets.dataDirJpeg.path}"}{\\fldrslt cached}}`),
      params: { document: { format: 'pdf' } },
      aims: [targets.dataDirJpeg],
    },
    {
      name: 'xlsx: picture linked to file:///, converted to PDF',
      fileName: 'linked.xlsx',
      bytes: xlsxPicture(url),
      params: { document: { format: 'pdf' } },
      aims: [targets.dataDirJpeg],
    },
    {
      name: 'odt: picture linked to file:///, recompressed',
      fileName: 'linked-keep.odt',
      bytes: odtLinking(url),
      params: {},
      aims: [targets.dataDirJpeg],
    },
  ];
}

function svgAttacks(targets: CanaryTargets): HostileInput[] {
  const text = targets.dataDir.path;
  const jpeg = targets.dataDirJpeg.path;
  const svg = (body: string, prolog = '') =>
    Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?>${prolog}<svg xmlns="http://www.w3.org/2000/svg" ` +
        'xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:xi="http://www.w3.org/2001/XInclude" ' +
        `width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" fill="#3a6"/>${body}</svg>`,
    );
  const inputs: [string, Buffer, Canary][] = [
    [
      'image href to a file',
      svg(`<image href="file://${jpeg}" width="64" height="64"/>`),
      targets.dataDirJpeg,
    ],
    [
      'image xlink:href to a path',
      svg(`<image xlink:href="${jpeg}" width="64" height="64"/>`),
      targets.dataDirJpeg,
    ],
    [
      'XInclude of a text file',
      svg(`<text y="20"><xi:include href="file://${text}" parse="text"/></text>`),
      targets.dataDir,
    ],
    [
      'external entity',
      svg('<text y="20">&leak;</text>', `<!DOCTYPE svg [<!ENTITY leak SYSTEM "file://${text}">]>`),
      targets.dataDir,
    ],
    ['use of an external file', svg(`<use href="file://${text}#x"/>`), targets.dataDir],
    ['CSS @import of a file', svg(`<style>@import url("file://${text}");</style>`), targets.dataDir],
  ];
  return inputs.flatMap(([what, bytes, canary]) =>
    (['svg', 'png'] as const).map((format) => ({
      name: `svg: ${what}, to ${format}`,
      fileName: 'hostile.svg',
      bytes,
      params: { image: { format } },
      aims: [canary],
    })),
  );
}

/**
 * An MP4 whose data reference puts its samples in the canary file: a lossless remux copies samples without
 * decoding them, so the canary's bytes would land in the output if ffmpeg followed the reference.
 */
function externalSampleAttacks(dir: string, targets: CanaryTargets): HostileInput[] {
  mkdirSync(dir, { recursive: true });
  const clip = makeClip(join(dir, 'clip.mp4'), { width: 96, height: 64, seconds: 1, audio: false });
  return [targets.dataDir, targets.etc].map((canary, index) => ({
    name: `media: MP4 whose samples are in ${canary === targets.etc ? '/etc' : 'the data directory'}, remuxed`,
    fileName: 'external.mp4',
    bytes: readFileSync(externalSamples(clip, join(dir, `external-${index}.mp4`), urlReference(canary.path))),
    params: { video: { compression: 'lossless' } },
    aims: [canary],
  }));
}

function mediaAttacks(targets: CanaryTargets): HostileInput[] {
  const path = targets.dataDir.path;
  const hls = ['#EXTM3U', '#EXT-X-TARGETDURATION:3', '#EXTINF:3.0,', `file://${path}`, '#EXT-X-ENDLIST', ''];
  const concat = ['ffconcat version 1.0', `file '${path}'`, ''];
  return [
    { name: 'media: HLS playlist named .avi', fileName: 'clip.avi', text: hls },
    { name: 'media: HLS playlist named .m3u8', fileName: 'clip.m3u8', text: hls },
    { name: 'media: ffconcat list named .mp4', fileName: 'clip.mp4', text: concat },
    // RIFF/AVI magic in front: detection calls it an AVI; the AVI demuxer alone may open it.
    {
      name: 'media: concat list behind an AVI header',
      fileName: 'riff.avi',
      text: ['RIFF\u0000\u0001\u0000\u0000AVI LIST', ...concat],
    },
  ].map(({ name, fileName, text }) => ({
    name,
    fileName,
    bytes: Buffer.from(text.join('\n')),
    params: {},
    aims: [targets.dataDir],
  }));
}

/** A PDF of the given objects (numbered from 1; object 1 is the catalog) with a correct xref table. */
export function pdfOf(objects: string[]): Buffer {
  let body = '%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n';
  const offsets: number[] = [];
  for (const [index, object] of objects.entries()) {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  }
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

function pdfAttacks(targets: CanaryTargets): HostileInput[] {
  const path = targets.dataDir.path;
  const page = (contents: string, resources = '<< >>') =>
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents ${contents} /Resources ${resources} >>`;
  const readAndShow = `/Helvetica findfont 10 scalefont setfont 10 100 moveto (${path}) (r) file 200 string readstring pop show`;
  const stream = (dict: string, data: string) =>
    `<< ${dict} /Length ${data.length} >>\nstream\n${data}\nendstream`;
  const base = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'];
  const psXObject = pdfOf([
    ...base,
    page('4 0 R', '<< /XObject << /P 5 0 R >> >>'),
    stream('', '/P Do'),
    stream('/Type /XObject /Subtype /PS', readAndShow),
  ]);
  const externalStream = pdfOf([...base, page('4 0 R'), `<< /Length 0 /F (${path}) >>\nstream\n\nendstream`]);
  const fileSpecStream = pdfOf([
    ...base,
    page('4 0 R'),
    `<< /Length 0 /F << /Type /Filespec /F (${path}) /UF (${path}) >> >>\nstream\n\nendstream`,
  ]);
  const postscriptBehindHeader = Buffer.from(`%PDF-1.4\n%!PS\n${readAndShow}\nshowpage\n`, 'latin1');
  return [
    ['PostScript XObject reading a file', psXObject],
    ['external stream (/F path)', externalStream],
    ['external stream (/F file specification)', fileSpecStream],
    ['PostScript behind a PDF header', postscriptBehindHeader],
  ].map(([what, bytes]) => ({
    name: `pdf: ${what as string}`,
    fileName: 'hostile.pdf',
    bytes: bytes as Buffer,
    params: {},
    aims: [targets.dataDir],
  }));
}

/** Every hostile input, built in `dir` (the archives need real links on disk). */
export function hostileInputs(dir: string, targets: CanaryTargets): HostileInput[] {
  return [
    ...archiveAttacks(join(dir, 'archives'), targets),
    ...documentAttacks(targets),
    ...svgAttacks(targets),
    ...mediaAttacks(targets),
    ...externalSampleAttacks(join(dir, 'media'), targets),
    ...pdfAttacks(targets),
  ];
}
