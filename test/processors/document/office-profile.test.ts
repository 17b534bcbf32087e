/**
 * The second layer on its own: LibreOffice started on a profile written by writeOfficeProfile keeps every
 * setting as written (it drops keys its schema does not know when it rewrites the file, so a misspelt key
 * would be gone), and with it a DOCX picture linked to a local file is not drawn, where the default profile
 * draws it (the document itself is not cleaned here); so it is not on a copy of the process's template
 * (office-template.ts), which every conversion starts from.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { officeProfiles } from '../../../src/processors/document/libreoffice.ts';
import {
  OFFICE_SETTINGS,
  settingItem,
  writeOfficeProfile,
} from '../../../src/processors/document/office-profile.ts';
import { docx, relationship, wordPicture } from '../../security/office-link-documents.ts';
import { useScratch } from '../../support/scratch.ts';
import { scaledMs } from '../../support/time-scale.ts';

describe('LibreOffice profile', () => {
  const scratch = useScratch('presso-office-profile-');

  /** Red pixels in the PDF `soffice` makes of `input` with the profile in `profile`. */
  async function redPixels(input: string, profile: string, write: boolean): Promise<number> {
    if (write) await writeOfficeProfile(profile);
    const out = join(profile, 'out');
    execFileSync(
      'soffice',
      [
        `-env:UserInstallation=file://${profile}`,
        '--headless',
        '--convert-to',
        'pdf',
        '--outdir',
        out,
        input,
      ],
      { stdio: 'ignore', timeout: scaledMs(120_000) },
    );
    execFileSync('pdftoppm', ['-r', '30', join(out, 'linked.pdf'), join(out, 'page')]);
    let red = 0;
    for (const page of readdirSync(out).filter((f) => f.endsWith('.ppm'))) {
      const ppm = readFileSync(join(out, page));
      let at = 0;
      for (let newlines = 0; newlines < 3; ) if (ppm[at++] === 0x0a) newlines++; // P6, size, maximum
      for (; at + 2 < ppm.length; at += 3)
        if (ppm[at]! > 200 && ppm[at + 1]! < 40 && ppm[at + 2]! < 40) red++;
    }
    return red;
  }

  test('keeps its settings and stops a linked picture the default profile draws', async () => {
    const png = join(scratch(), 'red.png');
    writeFileSync(
      png,
      await sharp({ create: { width: 32, height: 32, channels: 3, background: '#ff0000' } })
        .png()
        .toBuffer(),
    );
    const input = join(scratch(), 'linked.docx');
    writeFileSync(input, docx(wordPicture('r:link="rId5"'), relationship('rId5', 'image', `file://${png}`)));
    const profile = join(scratch(), 'profile');
    assert.equal(await redPixels(input, profile, true), 0);
    const rewritten = readFileSync(join(profile, 'user', 'registrymodifications.xcu'), 'utf8');
    for (const setting of OFFICE_SETTINGS) {
      assert.ok(rewritten.includes(settingItem(setting)), `${setting.path}/${setting.name}`);
    }
    // The process's template (made by a real sandboxed run), as each conversion gets it: the same settings.
    const copy = join(scratch(), 'copy');
    assert.equal(await officeProfiles.prepare(copy, 2 * 1024 ** 3), 'copy');
    assert.equal(await redPixels(input, copy, false), 0);
    assert.ok(
      (await redPixels(input, join(scratch(), 'default'), false)) > 0,
      'the default profile draws it',
    );
  });
});
