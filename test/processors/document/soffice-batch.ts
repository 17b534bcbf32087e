/**
 * Conversions to different formats in one LibreOffice start. `--convert-to` takes one filter per start, and a
 * start costs ~1.1 CPU-s whatever it converts; a Basic macro in the profile's own Standard library (My
 * Macros: no macro security applies to it) loads each input hidden and stores it with its export filter,
 * then ends LibreOffice. Measured: the contract's eight non-HTML samples in one start, ~2 CPU-s, against
 * eight starts. HTML is not for this path: loaded by the macro it opens in Writer/Web, whose ODT export is
 * an HTML template, so HTML keeps `--convert-to` (fixtures.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { START_SETTINGS, settingItem } from '../../../src/processors/document/office-profile.ts';
import { scaledMs } from '../../support/time-scale.ts';

export interface BatchConversion {
  input: string;
  /** LibreOffice's export filter name, as storeToURL takes it (`MS Word 97`, `calc8`). */
  exportFilter: string;
  output: string;
}

const LIBRARY_HEADER =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<!DOCTYPE library:library PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "library.dtd">\n';
const LIBRARIES =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<!DOCTYPE library:libraries PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "libraries.dtd">\n' +
  '<library:libraries xmlns:library="http://openoffice.org/2000/library" xmlns:xlink="http://www.w3.org/1999/xlink">\n' +
  ' <library:library library:name="Standard" library:link="false"/>\n</library:libraries>\n';
const LIBRARY = (elements: string) =>
  `${LIBRARY_HEADER}<library:library xmlns:library="http://openoffice.org/2000/library" library:name="Standard" ` +
  `library:readonly="false" library:passwordprotected="false"${elements}`;

/** One line per conversion in the list file: input, filter and output, tab-separated. */
const MACRO = `Sub All(list As String)
  Dim n As Integer, entry As String, fields() As String, doc As Object
  Dim load(0) As New com.sun.star.beans.PropertyValue
  Dim store(0) As New com.sun.star.beans.PropertyValue
  load(0).Name = "Hidden" : load(0).Value = True
  n = FreeFile
  Open list For Input As #n
  Do While Not EOF(n)
    Line Input #n, entry
    fields = Split(entry, Chr(9))
    doc = StarDesktop.loadComponentFromURL(ConvertToURL(fields(0)), "_blank", 0, load())
    store(0).Name = "FilterName" : store(0).Value = fields(1)
    doc.storeToURL(ConvertToURL(fields(2)), store())
    doc.close(True)
  Loop
  Close #n
  StarDesktop.terminate()
End Sub`;

/**
 * Settings a set-up profile has; without them LibreOffice's first start replaces `user/basic`. With the
 * start's own settings (office-profile.ts: no graphics render tests).
 */
const PREFS = (buildId: string) =>
  [
    { path: '/org.openoffice.Office.Common/Misc', name: 'FirstRun', value: 'false' },
    { path: '/org.openoffice.Setup/Office', name: 'ooSetupInstCompleted', value: 'true' },
    { path: '/org.openoffice.Setup/Office', name: 'LastCompatibilityCheckID', value: buildId },
    ...START_SETTINGS,
  ]
    .map(settingItem)
    .join('');

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** LibreOffice's build id (versionrc): a profile last checked by another build is set up anew. */
function buildId(): string {
  const versionrc = readFileSync('/usr/lib/libreoffice/program/versionrc', 'utf8');
  return escapeXml(/^buildid=(.*)$/m.exec(versionrc)?.[1] ?? '');
}

/**
 * A profile LibreOffice takes as already set up (a registry file is there, so its first start does not
 * replace `user/basic` with the default library), whose Standard library holds the macro.
 */
function writeProfile(profile: string): void {
  const basic = join(profile, 'user', 'basic');
  mkdirSync(join(basic, 'Standard'), { recursive: true });
  writeFileSync(
    join(profile, 'user', 'registrymodifications.xcu'),
    '<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/2001/registry" ' +
      'xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
      PREFS(buildId()) +
      '</oor:items>\n',
  );
  writeFileSync(join(basic, 'script.xlc'), LIBRARIES);
  writeFileSync(join(basic, 'dialog.xlc'), LIBRARIES);
  writeFileSync(join(basic, 'Standard', 'dialog.xlb'), LIBRARY('/>\n'));
  writeFileSync(
    join(basic, 'Standard', 'script.xlb'),
    LIBRARY('>\n <library:element library:name="Convert"/>\n</library:library>\n'),
  );
  writeFileSync(
    join(basic, 'Standard', 'Convert.xba'),
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
      '<!DOCTYPE script:module PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "module.dtd">\n' +
      '<script:module xmlns:script="http://openoffice.org/2000/script" script:name="Convert" ' +
      `script:language="StarBasic">${escapeXml(MACRO)}</script:module>\n`,
  );
}

/** Every conversion in one LibreOffice start, in `dir` (its profile and list); throws if an output is missing. */
export function convertInOneStart(conversions: readonly BatchConversion[], dir: string): void {
  if (conversions.length === 0) return;
  const profile = join(dir, 'batch-profile');
  writeProfile(profile);
  const list = join(dir, 'batch-list.txt');
  writeFileSync(
    list,
    conversions.map(({ input, exportFilter, output }) => `${input}\t${exportFilter}\t${output}\n`).join(''),
  );
  execFileSync(
    'soffice',
    [`-env:UserInstallation=file://${profile}`, '--headless', `macro:///Standard.Convert.All("${list}")`],
    { stdio: 'ignore', timeout: scaledMs(120_000 * conversions.length) },
  );
  const missing = conversions.filter(({ output }) => !existsSync(output));
  if (missing.length > 0) {
    throw new Error(`LibreOffice made no ${missing.map(({ output }) => output).join(', ')}`);
  }
}
