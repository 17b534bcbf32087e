/**
 * The sandbox every external tool runs in (bubblewrap, `bwrap`): the system folders read-only, the few
 * `/etc` entries tools read (fonts, the loader cache, LibreOffice's and Ghostscript's font maps), a fresh
 * `/proc`, a minimal `/dev`, a private `/tmp`, and of the data only the job's own folder (read-write) and the
 * files it was given (read-only), each at its own absolute path so arguments stay valid. It has no network,
 * its own user, PID, IPC, UTS and cgroup namespaces, a new session, and dies with the runner's process.
 * So a parser bug in any tool (an archive link that climbs out, a playlist naming a local file, a document
 * linking `file:///`) finds nothing of the data directory, the keys or other jobs to read.
 *
 * The isolation is a process-wide policy, set once at start-up from `PRESSO_SANDBOX` (runtime/sandbox.ts);
 * processors used alone (tests, benches) get the default, `bwrap`.
 */
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, relative, sep } from 'node:path';

export type SandboxMode = 'bwrap' | 'off';

/** By absolute path: a PATH without bubblewrap must not quietly run tools unconfined. */
export const BWRAP = '/usr/bin/bwrap';

let mode: SandboxMode = 'bwrap';

/** The isolation of every tool this process runs from now on. */
export function setSandboxMode(next: SandboxMode): void {
  mode = next;
}

export function sandboxMode(): SandboxMode {
  return mode;
}

/** What one tool run may see of the data: everything else of the file system is absent. */
export interface SandboxView {
  /** Bound read-write at its own path: the job's folder (the tool's cwd lies inside it). */
  jobDir: string;
  /** The tool's working directory. */
  cwd: string;
  /** Files or folders bound read-only at their own paths: the job's input, a program's own files. */
  readOnly: readonly string[];
}

/**
 * System folders bound read-only where they are folders; where the host has them as links into /usr
 * (Debian's merged /usr), the same links. `/usr/local` comes with `/usr`.
 */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * The only `/etc` entries and other system data a tool reads (found by tracing every tool's file calls):
 * the loader cache; fontconfig's configuration and cache (LibreOffice, Ghostscript, Poppler, librsvg);
 * LibreOffice's registry and `sofficerc`; Ghostscript's font maps (`/var/lib/ghostscript`); the links of
 * `update-alternatives`; the time zone (ZIP stores local times) and the paper size. `/etc` itself is never bound whole: a secret dropped there stays out of reach.
 */
const SYSTEM_FILES = [
  '/etc/ld.so.cache',
  '/etc/fonts',
  '/etc/libreoffice',
  '/etc/alternatives',
  '/etc/localtime',
  '/etc/papersize',
  '/var/cache/fontconfig',
  '/var/lib/ghostscript',
];

/** The environment of every tool: no variable of the server's (database URLs, keys) reaches one. */
export function toolEnvironment(home: string): NodeJS.ProcessEnv {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    TMPDIR: '/tmp',
    LANG: 'C.UTF-8',
    ...(process.env.TZ === undefined ? {} : { TZ: process.env.TZ }),
  };
}

/**
 * The program a tool name stands for, found in the server's PATH as `spawn` would (the sandbox has none of
 * the server's PATH); undefined when it is not installed.
 */
export function resolveProgram(command: string): string | undefined {
  if (isAbsolute(command)) return existsSync(command) ? command : undefined;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function isExecutableFile(path: string): boolean {
  try {
    return lstatSync(realpathSync(path)).isFile();
  } catch {
    return false;
  }
}

function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** A program outside the system folders (Node from npm) brings its own folder, read-only. */
function programFolder(program: string): string[] {
  const real = realpathSync(program);
  return SYSTEM_DIRS.some((dir) => isInside(real, dir)) ? [] : [dirname(real)];
}

function systemBinds(): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    const stat = lstatSync(dir, { throwIfNoEntry: false });
    if (stat === undefined) continue;
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  for (const path of SYSTEM_FILES) args.push('--ro-bind-try', path, path);
  return args;
}

let systemArgs: string[] | undefined;

/** `bwrap`'s arguments that run `program` with `args` inside `view`. */
export function bwrapArgs(program: string, args: readonly string[], view: SandboxView): string[] {
  systemArgs ??= systemBinds();
  const readOnly = [...programFolder(program), ...view.readOnly];
  return [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    ...systemArgs,
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--bind',
    view.jobDir,
    view.jobDir,
    // After the job's folder: a read-only input inside it stays read-only.
    ...readOnly.flatMap((path) => ['--ro-bind', path, path]),
    '--chdir',
    view.cwd,
    '--',
    program,
    ...args,
  ];
}

/**
 * Whether bubblewrap runs here: installed, and allowed to make the namespaces (a container's seccomp or
 * AppArmor profile may forbid them). Resolves to undefined when it does, else to bwrap's complaint.
 */
export function probeSandbox(): Promise<string | undefined> {
  if (!existsSync(BWRAP)) return Promise.resolve(`${BWRAP} is not installed`);
  const dir = realpathSync('/tmp');
  const args = bwrapArgs('/bin/true', [], { jobDir: dir, cwd: dir, readOnly: [] });
  return new Promise((resolve) => {
    execFile(BWRAP, args, { env: toolEnvironment('/tmp'), timeout: 30_000 }, (error, _stdout, stderr) => {
      resolve(error ? (String(stderr).trim() || error.message).split('\n')[0] : undefined);
    });
  });
}
