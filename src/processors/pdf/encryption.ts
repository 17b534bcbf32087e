/**
 * Encrypted input: qpdf reports whether a file is encrypted and, given the password, writes a decrypted
 * copy every other tool (Ghostscript, Poppler, the later qpdf passes) reads, so only these two qpdf runs see
 * the password. It reaches them on stdin (`--password-file=-`), never on a command line, where any process
 * on the host can read it (`/proc/<pid>/cmdline`), nor in a file. A file that needs a password and has none
 * (or a wrong one) is the client's mistake on `pdf.password`, answered 422 on that field, never a tool
 * failure.
 */
import { join } from 'node:path';
import { PressoError, ValidationError } from '../../errors/catalog.ts';
import { type PdfToolRun, pdfTool } from '../shared/pdf-tools.ts';

export interface OpenedPdf {
  /** The file the rest of the pipeline reads: the input, or its decrypted copy. */
  path: string;
  /** qpdf's description of the encryption (`R = 4`, `P = -1340`, ...), undefined when not encrypted. */
  encryption: string | undefined;
}

/** qpdf's words for a password that does not open the file. */
const BAD_PASSWORD = /invalid password/i;

export async function openPdf(
  input: string,
  password: string | undefined,
  run: PdfToolRun,
): Promise<OpenedPdf> {
  // qpdf reads the first line of its password file: a line break would cut the password short.
  if (password !== undefined && /[\r\n]/.test(password)) {
    throw ValidationError.field('pdf.password', 'a password holding a line break cannot be used');
  }
  const pw = password === undefined ? {} : { stdin: `${password}\n` };
  const pwArgs = password === undefined ? [] : ['--password-file=-'];
  let shown: string;
  try {
    shown = (
      await pdfTool('qpdf', ['--show-encryption', ...pwArgs, input], run, { captureStdout: true, ...pw })
    ).stdout;
  } catch (error) {
    throw passwordError(error, password) ?? error;
  }
  if (/File is not encrypted/i.test(shown)) return { path: input, encryption: undefined };
  const decrypted = join(run.workDir, 'decrypted.pdf');
  try {
    await pdfTool('qpdf', ['--decrypt', ...pwArgs, input, decrypted], run, pw);
  } catch (error) {
    throw passwordError(error, password) ?? error;
  }
  return { path: decrypted, encryption: summarise(shown) };
}

function passwordError(error: unknown, password: string | undefined): ValidationError | undefined {
  if (!(error instanceof PressoError) || !(error.cause instanceof Error)) return undefined;
  if (!BAD_PASSWORD.test(error.cause.message)) return undefined;
  return ValidationError.field(
    'pdf.password',
    password === undefined
      ? 'the PDF is encrypted: give its password in pdf.password'
      : 'the password does not open this PDF',
  );
}

/** The first lines of `--show-encryption` (revision, permissions), without the password itself. */
function summarise(shown: string): string {
  return shown
    .split('\n')
    .filter((line) => line.trim() !== '' && !/password/i.test(line))
    .slice(0, 3)
    .join('; ');
}
