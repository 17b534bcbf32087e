/**
 * Each LibreOffice run's profile, copied from a template the process makes once. A fresh profile makes
 * LibreOffice do its first start: it sets the profile up (Basic libraries, databases, the bundled extensions'
 * registry), then restarts itself (soffice.bin exits 81 and its launcher starts it again). A copy of a profile
 * that a run has already set up starts once: a tiny RTF to PDF in the sandbox took 0.21–0.25 CPU-s instead of
 * 0.34–0.42 (measured, with office-profile.ts's START_SETTINGS in both).
 *
 * The template is made by a real LibreOffice run, sandboxed like any (run-tool.ts), converting a trivial
 * document we write ourselves, in a folder of the process's temporary area that no job's sandbox ever sees;
 * it is checked (every setting of office-profile.ts kept as written, only folders and plain files) and then
 * only read. Each run gets its own private, writable copy in the job's folder, copied by this process
 * outside the sandbox, with the checked settings file written over it: whatever a run or a hostile document
 * changes in its profile dies with the job, and the next run starts from the template again. Made on the
 * first conversion that needs it, once however many ask at the same time (they wait for it); each process
 * has its own (processes sharing a data directory never share or lock one), removed when the process exits
 * (a killed process leaves half a megabyte in the temporary area, read by nobody). When it cannot be made,
 * runs fall back to a fresh profile, with one warning saying why; a missing LibreOffice is not such a
 * failure (the run reports it, and the next conversion tries again).
 */
import { rmSync } from 'node:fs';
import { cp, lstat, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolMissingError } from '../../errors/catalog.ts';
import { OFFICE_SETTINGS, settingItem, settingsFile, writeOfficeProfile } from './office-profile.ts';

/**
 * Runs LibreOffice once in `folder` (its sandbox's only data) on a document of its own, with the profile
 * `<folder>/profile`, where a fresh one is already written; resolves once the run succeeded.
 */
export type MakeTemplate = (folder: string, memoryBytes: number) => Promise<void>;

interface Template {
  profile: string;
  /** The template's settings file as checked: written over each copy. */
  settings: string;
}

/** The profiles of one process's LibreOffice runs. */
export class OfficeProfiles {
  readonly #make: MakeTemplate;
  readonly #parent: string;
  #template: Promise<Template | undefined> | undefined;
  #made = 0;
  #warned = false;

  /** `parent`: where the template's folder is made (the process's temporary area). */
  constructor(make: MakeTemplate, parent = tmpdir()) {
    this.#make = make;
    this.#parent = parent;
  }

  /** How many templates were made (tests: one per process, however many runs asked at once). */
  get templatesMade(): number {
    return this.#made;
  }

  /** The template's profile folder, once made; undefined when runs fall back to fresh profiles. */
  async templateProfile(memoryBytes: number): Promise<string | undefined> {
    return (await this.#ready(memoryBytes))?.profile;
  }

  /**
   * Writes the profile of one run into `profileDir` (a folder that does not exist yet, in the job's folder):
   * a copy of the template, or a fresh profile when there is none. Which one it was comes back.
   */
  async prepare(profileDir: string, memoryBytes: number): Promise<'copy' | 'fresh'> {
    const template = await this.#ready(memoryBytes);
    if (template === undefined) {
      await writeOfficeProfile(profileDir);
      return 'fresh';
    }
    await cp(template.profile, profileDir, { recursive: true, errorOnExist: true, force: false });
    await writeFile(settingsFile(profileDir), template.settings);
    return 'copy';
  }

  #ready(memoryBytes: number): Promise<Template | undefined> {
    this.#template ??= this.#build(memoryBytes).catch((error: unknown) => {
      if (error instanceof ToolMissingError) {
        this.#template = undefined;
      } else if (!this.#warned) {
        this.#warned = true;
        const why = error instanceof Error ? error.message : String(error);
        process.emitWarning(
          `LibreOffice's profile template could not be made (${why}); every run starts from a fresh profile`,
          {
            code: 'PRESSO_OFFICE_TEMPLATE',
          },
        );
      }
      return undefined;
    });
    return this.#template;
  }

  async #build(memoryBytes: number): Promise<Template> {
    const folder = await mkdtemp(join(this.#parent, 'presso-office-template-'));
    try {
      const profile = join(folder, 'profile');
      await writeOfficeProfile(profile);
      await this.#make(folder, memoryBytes);
      await plainTree(profile);
      const settings = await readFile(settingsFile(profile), 'utf8');
      checkSettings(settings);
      process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
      this.#made++;
      return { profile, settings };
    } catch (error) {
      await rm(folder, { recursive: true, force: true });
      throw error;
    }
  }
}

/** Each setting once, as office-profile.ts writes it: LibreOffice drops keys it does not know. */
function checkSettings(settings: string): void {
  const lines = settings.split('\n');
  for (const setting of OFFICE_SETTINGS) {
    const { path, name } = setting;
    const same = lines.filter((line) => line.startsWith(`<item oor:path="${path}"><prop oor:name="${name}"`));
    if (same.length !== 1 || same[0] !== settingItem(setting)) {
      throw new Error(`LibreOffice did not keep ${path}/${name} as written`);
    }
  }
}

/** Refuses a profile holding anything but folders and plain files: a copy must not lead anywhere else. */
async function plainTree(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const stat = await lstat(path);
    if (stat.isDirectory()) await plainTree(path);
    else if (!stat.isFile()) throw new Error(`the profile holds ${entry.name}, neither a folder nor a file`);
  }
}
