/**
 * The isolation of external tools, declared once: `PRESSO_SANDBOX`. The default runs every tool in
 * bubblewrap, in every mode and role that runs jobs; `off` is for hosts that cannot make namespaces, and
 * the start-up says loudly what it gives up (runtime/sandbox.ts).
 */
import { type Loaded, oneOf, section } from '../../config/env.ts';

export const sandboxConfig = section({
  mode: oneOf('PRESSO_SANDBOX', {
    values: ['bwrap', 'off'] as const,
    default: 'bwrap',
    doc:
      'Isolation of every external tool (ffmpeg, Ghostscript, LibreOffice, 7-Zip, ...): bwrap (bubblewrap: ' +
      'only the job’s folder, no network, own namespaces; the start fails if it cannot run here) or off ' +
      '(tools see all the server sees; a loud warning at start-up)',
  }),
});

export type SandboxConfig = Loaded<typeof sandboxConfig>;
