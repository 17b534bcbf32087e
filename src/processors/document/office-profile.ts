/**
 * The settings every LibreOffice run starts with, written into its profile before it starts (a copy of the
 * process's template, office-template.ts, or a fresh one): a second layer behind the links removed from the
 * document (external-links.ts, rtf-links.ts), for link kinds those scans do not know. The keys are
 * LibreOffice's own (officecfg schema, in /usr/lib/libreoffice/share/registry/main.xcd of LibreOffice 7.4):
 * - Common/Security/Scripting/BlockUntrustedRefererLinks: a document outside the trusted locations loads no
 *   linked picture (measured: stops DOCX, XLSX, PPTX, ODT `draw:image`, DOC and PPT linked pictures; not ODF
 *   backgrounds, OLE links or RTF INCLUDEPICTURE, which the document scans remove);
 * - Common/Security/Scripting/SecureURL empty: no trusted location, so no link update is ever trusted;
 * - Common/Security/Scripting/DisableMacrosExecution and MacroSecurityLevel 3 (very high): no macro runs;
 * - Writer/Content/Update/Link 0 (never) and Calc/Content/Update/Link 1 (never): links are not updated on
 *   load (the Calc and Writer enumerations differ);
 * - Calc/Formula/Load OOXMLRecalcMode and ODFRecalcMode 1 (never): cached results are shown, so no formula
 *   (INDIRECT, WEBSERVICE, external references) is evaluated while loading.
 * And one for the start's cost, not its safety (START_SETTINGS).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface OfficeSetting {
  path: string;
  name: string;
  /** `undefined`: an empty string list (written `<value></value>`, as LibreOffice writes it back). */
  value: string | undefined;
}

/**
 * Setup/Product/ooSetupLastVersion: the last LibreOffice version the profile ran, set to one no release has
 * reached. LibreOffice compares it with its own (major × 10 + minor) and, when the profile's is older, takes
 * itself for upgraded and runs its VCL graphics render tests (a hundred drawings, 4096-pixel ones among them,
 * whose only result is `user/GraphicsRenderTests.log`). Only the GUI's "what's new" bar records the version,
 * so a headless run never did and every conversion repeated them: 0.6 of its 1.0 CPU-s, measured on a tiny
 * RTF to PDF (LibreOffice 7.4). Nothing else reads the key but that bar.
 */
export const START_SETTINGS: readonly OfficeSetting[] = [
  { path: '/org.openoffice.Setup/Product', name: 'ooSetupLastVersion', value: '9999.9' },
];

export const OFFICE_SETTINGS: readonly OfficeSetting[] = [
  {
    path: '/org.openoffice.Office.Common/Security/Scripting',
    name: 'BlockUntrustedRefererLinks',
    value: 'true',
  },
  { path: '/org.openoffice.Office.Common/Security/Scripting', name: 'SecureURL', value: undefined },
  { path: '/org.openoffice.Office.Common/Security/Scripting', name: 'DisableMacrosExecution', value: 'true' },
  { path: '/org.openoffice.Office.Common/Security/Scripting', name: 'MacroSecurityLevel', value: '3' },
  { path: '/org.openoffice.Office.Writer/Content/Update', name: 'Link', value: '0' },
  { path: '/org.openoffice.Office.Calc/Content/Update', name: 'Link', value: '1' },
  { path: '/org.openoffice.Office.Calc/Formula/Load', name: 'OOXMLRecalcMode', value: '1' },
  { path: '/org.openoffice.Office.Calc/Formula/Load', name: 'ODFRecalcMode', value: '1' },
  ...START_SETTINGS,
];

/** A setting as the line LibreOffice itself writes for it in `registrymodifications.xcu`, byte for byte. */
export function settingItem({ path, name, value }: OfficeSetting): string {
  return (
    `<item oor:path="${path}"><prop oor:name="${name}" oor:op="fuse">` +
    `<value>${value ?? ''}</value></prop></item>`
  );
}

/** A whole `registrymodifications.xcu` holding `settings`. */
export function settingsXcu(settings: readonly OfficeSetting[]): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" ' +
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
    ...settings.map(settingItem),
    '</oor:items>',
    '',
  ].join('\n');
}

/** The settings' file in a profile folder: LibreOffice reads them from there. */
export const settingsFile = (profileDir: string) => join(profileDir, 'user', 'registrymodifications.xcu');

/** A fresh profile: only the settings, as `user/registrymodifications.xcu`. */
export async function writeOfficeProfile(profileDir: string): Promise<void> {
  await mkdir(join(profileDir, 'user'), { recursive: true });
  await writeFile(settingsFile(profileDir), settingsXcu(OFFICE_SETTINGS));
}
