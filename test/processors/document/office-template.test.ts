/**
 * Each LibreOffice run's profile is a private copy of one template per process (office-template.ts): the
 * template is made once however many runs ask at the same time, each run gets its own copy in its job's
 * folder with the settings of office-profile.ts, and what a run (LibreOffice itself, or anything that
 * writes into its profile) changes reaches neither the template nor the next run. When no template can be
 * made the runs start from fresh profiles, with one warning. The real runs' PDF is the one a fresh profile
 * gives.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { ToolMissingError } from '../../../src/errors/catalog.ts';
import { convert, type OfficeRun, officeProfiles } from '../../../src/processors/document/libreoffice.ts';
import {
  OFFICE_SETTINGS,
  settingItem,
  settingsFile,
  writeOfficeProfile,
} from '../../../src/processors/document/office-profile.ts';
import { type MakeTemplate, OfficeProfiles } from '../../../src/processors/document/office-template.ts';
import { Deadline } from '../../../src/processors/shared/deadline.ts';
import { useScratch } from '../../support/scratch.ts';
import { scaledMs } from '../../support/time-scale.ts';

const MEMORY = 2 * 1024 ** 3;

/** Every file of a folder with its bytes' digest, by relative path. */
function tree(dir: string, root = dir): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) Object.assign(files, tree(path, root));
    else files[relative(root, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return files;
}

/** What LibreOffice's first start leaves in a profile, as far as OfficeProfiles cares. */
const setUpLikeLibreOffice: MakeTemplate = async (folder) => {
  const user = join(folder, 'profile', 'user');
  const written = readFileSync(join(user, 'registrymodifications.xcu'), 'utf8');
  const first =
    '<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>';
  writeFileSync(
    join(user, 'registrymodifications.xcu'),
    written.replace('</oor:items>', `${first}\n</oor:items>`),
  );
  mkdirSync(join(user, 'extensions'));
  writeFileSync(join(user, 'extensions', 'lastsynchronized'), '1');
};

describe('LibreOffice profile template', () => {
  const scratch = useScratch('presso-office-template-');

  test('made once for runs that ask at the same time; each run gets its own copy', async () => {
    let makes = 0;
    const profiles = new OfficeProfiles(async (folder, memoryBytes) => {
      makes++;
      await setUpLikeLibreOffice(folder, memoryBytes);
    }, scratch());
    const dirs = [1, 2, 3].map((i) => join(scratch(), `run-${i}`, 'profile'));
    assert.deepEqual(await Promise.all(dirs.map((dir) => profiles.prepare(dir, MEMORY))), [
      'copy',
      'copy',
      'copy',
    ]);
    assert.equal(makes, 1);
    assert.equal(profiles.templatesMade, 1);
    const template = (await profiles.templateProfile(MEMORY))!;
    const made = tree(template);
    assert.ok(made['user/extensions/lastsynchronized'] !== undefined);
    for (const dir of dirs) {
      assert.deepEqual(tree(dir), made);
      // A copy, not a link to the template's file: writing it cannot write the template.
      const xcu = statSync(settingsFile(dir));
      assert.notEqual(xcu.ino, statSync(settingsFile(template)).ino);
      assert.equal(xcu.nlink, 1);
    }

    // One run rewrites its settings and adds a macro; the template and the next run never see it.
    const tampered = settingsFile(dirs[0]!);
    writeFileSync(tampered, readFileSync(tampered, 'utf8').replace('<value>3</value>', '<value>0</value>'));
    mkdirSync(join(dirs[0]!, 'user', 'basic'));
    writeFileSync(join(dirs[0]!, 'user', 'basic', 'Module1.xba'), 'Sub Main\nEnd Sub\n');
    // Even the template's own settings file, were it changed on disk, is not what the next run gets.
    writeFileSync(
      settingsFile(template),
      readFileSync(settingsFile(template), 'utf8').replace('<value>3</value>', '<value>0</value>'),
    );
    const next = join(scratch(), 'run-4', 'profile');
    await profiles.prepare(next, MEMORY);
    assert.equal(existsSync(join(next, 'user', 'basic')), false);
    assert.equal(readFileSync(settingsFile(next), 'utf8'), readFileSync(settingsFile(dirs[1]!), 'utf8'));
    assert.ok(
      readFileSync(settingsFile(next), 'utf8').includes('MacroSecurityLevel" oor:op="fuse"><value>3<'),
    );
    assert.equal(makes, 1);
  });

  test('refused, with one warning, when it cannot be made; runs then start from a fresh profile', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error & { code?: string }) => {
      if (warning.code === 'PRESSO_OFFICE_TEMPLATE') warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      const fresh = join(scratch(), 'fresh');
      await writeOfficeProfile(fresh);
      const cases: Record<string, MakeTemplate> = {
        'the run failed': async () => {
          throw new Error('LibreOffice exited with code 1');
        },
        'a setting was dropped': async (folder) => {
          const xcu = join(folder, 'profile', 'user', 'registrymodifications.xcu');
          writeFileSync(xcu, readFileSync(xcu, 'utf8').replace(settingItem(OFFICE_SETTINGS[0]!), ''));
        },
        'a setting was changed': async (folder) => {
          const xcu = join(folder, 'profile', 'user', 'registrymodifications.xcu');
          writeFileSync(xcu, readFileSync(xcu, 'utf8').replace('<value>3</value>', '<value>0</value>'));
        },
        'the profile holds a link': async (folder) => {
          symlinkSync('/etc/passwd', join(folder, 'profile', 'user', 'passwd'));
        },
      };
      for (const [name, make] of Object.entries(cases)) {
        const parent = join(scratch(), name);
        mkdirSync(parent);
        const profiles = new OfficeProfiles(make, parent);
        const dirs = [1, 2].map((i) => join(scratch(), `${name}-${i}`));
        for (const dir of dirs) assert.equal(await profiles.prepare(dir, MEMORY), 'fresh', name);
        for (const dir of dirs) assert.deepEqual(tree(dir), tree(fresh), name);
        assert.equal(await profiles.templateProfile(MEMORY), undefined);
        // Its folder is gone at once, not only when the process exits.
        assert.deepEqual(readdirSync(parent), [], name);
      }
      // Once per process (here: per OfficeProfiles), not once per run.
      assert.equal(warnings.length, Object.keys(cases).length);
      assert.match(warnings[1]!.message, /did not keep .*BlockUntrustedRefererLinks/);
    } finally {
      process.off('warning', onWarning);
    }
  });

  test('a missing LibreOffice is left to the run to report, and tried again next time', async () => {
    let makes = 0;
    const profiles = new OfficeProfiles(async (folder, memoryBytes) => {
      if (++makes === 1) throw new ToolMissingError('LibreOffice (soffice)');
      await setUpLikeLibreOffice(folder, memoryBytes);
    }, scratch());
    assert.equal(await profiles.prepare(join(scratch(), 'missing-1'), MEMORY), 'fresh');
    assert.equal(await profiles.prepare(join(scratch(), 'missing-2'), MEMORY), 'copy');
    assert.equal(makes, 2);
  });

  test('real runs: one template, untouched by the runs, and the PDF a fresh profile gives', async () => {
    const officeRun = (name: string): OfficeRun => {
      const workDir = join(scratch(), name);
      mkdirSync(workDir);
      return {
        deadline: new Deadline(scaledMs(120_000)),
        signal: new AbortController().signal,
        workDir,
        jobDir: workDir,
        memoryBytes: MEMORY,
        zip: { maxEntries: 1000, maxUnzippedBytes: 1e8 },
      };
    };
    const rtf = join(scratch(), 'note.rtf');
    writeFileSync(rtf, '{\\rtf1\\ansi\\fs48 Presso template test\\par Second line}');
    const template = (await officeProfiles.templateProfile(MEMORY))!;
    assert.ok(template !== undefined, 'the template was made');
    const before = tree(template);
    // RTF goes to ODT, then to PDF: two LibreOffice runs per job, two jobs at once.
    const jobs = [officeRun('job-1'), officeRun('job-2')];
    const pdfs = await Promise.all(jobs.map((run) => convert(rtf, 'rtf', 'pdf', run)));
    assert.equal(officeProfiles.templatesMade, 1);
    const runProfiles = jobs.flatMap((run) =>
      readdirSync(run.workDir).map((folder) => join(run.workDir, folder, 'profile')),
    );
    assert.equal(runProfiles.length, 4);
    for (const profile of runProfiles) {
      const settings = readFileSync(settingsFile(profile), 'utf8');
      for (const setting of OFFICE_SETTINGS) assert.ok(settings.includes(settingItem(setting)), setting.name);
    }
    // Four runs, each writing its own copy as it ran; the template is as it was made.
    assert.deepEqual(tree(template), before);

    // The same page, pixel for pixel, and the same text as a fresh profile's run (today's fallback).
    const freshProfile = join(scratch(), 'fresh-profile');
    await writeOfficeProfile(freshProfile);
    // The cleaned ODT the job's second run converted.
    const odt = readdirSync(jobs[0]!.workDir)
      .map((folder) => join(jobs[0]!.workDir, folder, 'document.odt'))
      .find((path) => existsSync(path))!;
    const freshOut = join(scratch(), 'fresh-out');
    execFileSync(
      'soffice',
      [
        `-env:UserInstallation=file://${freshProfile}`,
        '--headless',
        '--convert-to',
        'pdf',
        '--outdir',
        freshOut,
        odt,
      ],
      { stdio: 'ignore', timeout: scaledMs(120_000) },
    );
    const page = (pdf: string) => execFileSync('pdftoppm', ['-r', '40', '-gray', pdf]);
    const text = (pdf: string) => execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' });
    const fresh = join(freshOut, 'document.pdf');
    for (const pdf of pdfs) {
      assert.ok(page(pdf).equals(page(fresh)), 'the same page as a fresh profile draws');
      assert.equal(text(pdf), text(fresh));
    }
    assert.match(text(fresh), /Presso template test/);
  });
});
