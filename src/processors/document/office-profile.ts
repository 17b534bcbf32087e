/**
 * The settings every LibreOffice run starts with, written into its fresh profile before it starts: a second
 * layer behind the links removed from the document (external-links.ts, rtf-links.ts), for link kinds those
 * scans do not know. The keys are LibreOffice's own (officecfg schema, in
 * /usr/lib/libreoffice/share/registry/main.xcd of LibreOffice 7.4):
 * - Common/Security/Scripting/BlockUntrustedRefererLinks: a document outside the trusted locations loads no
 *   linked picture (measured: stops DOCX, XLSX, PPTX, ODT `draw:image`, DOC and PPT linked pictures; not ODF
 *   backgrounds, OLE links or RTF INCLUDEPICTURE, which the document scans remove);
 * - Common/Security/Scripting/SecureURL empty: no trusted location, so no link update is ever trusted;
 * - Common/Security/Scripting/DisableMacrosExecution and MacroSecurityLevel 3 (very high): no macro runs;
 * - Writer/Content/Update/Link 0 (never) and Calc/Content/Update/Link 1 (never): links are not updated on
 *   load (the Calc and Writer enumerations differ);
 * - Calc/Formula/Load OOXMLRecalcMode and ODFRecalcMode 1 (never): cached results are shown, so no formula
 *   (INDIRECT, WEBSERVICE, external references) is evaluated while loading.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

interface Setting {
  path: string;
  name: string;
  /** `undefined`: an empty string list. */
  value: string | undefined;
}

export const OFFICE_SETTINGS: readonly Setting[] = [
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
];

/** Writes the settings as the profile's `user/registrymodifications.xcu` (the file LibreOffice reads them from). */
export async function writeOfficeProfile(profileDir: string): Promise<void> {
  const items = OFFICE_SETTINGS.map(
    ({ path, name, value }) =>
      `<item oor:path="${path}"><prop oor:name="${name}" oor:op="fuse">` +
      `${value === undefined ? '<value/>' : `<value>${value}</value>`}</prop></item>`,
  );
  const xcu = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" ' +
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
    ...items,
    '</oor:items>',
    '',
  ].join('\n');
  await mkdir(join(profileDir, 'user'), { recursive: true });
  await writeFile(join(profileDir, 'user', 'registrymodifications.xcu'), xcu);
}
