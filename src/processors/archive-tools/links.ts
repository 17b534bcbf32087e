/**
 * Where a symbolic link leads, resolved the way the kernel resolves it but inside the archive's own tree:
 * each component is looked up in the tree (the listing's, or the unpacked folder's), a link met on the way is
 * replaced by its target, and `..` climbs from where the walk really is. Letters alone are not enough:
 * `a/b/c/s -> ../..` makes `x -> a/b/c/s/../../..` look inside (`.`) while the kernel lands above the root.
 * Nothing outside the tree is ever looked at: the walk stops as soon as it would leave.
 *
 * Paths here are keys: `/`-separated, relative to the archive's root, without `.` or empty components
 * (`pathKey`), one character per byte of the name on disk.
 */

export type TreeNode =
  | { kind: 'folder' }
  | { kind: 'file' }
  | { kind: 'symlink'; target: string | undefined }
  | undefined;

/** What is at `key` in the tree (undefined: nothing). */
export type TreeLookup = (key: string) => TreeNode | Promise<TreeNode>;

export type LinkVerdict = 'inside' | 'outside' | 'loop' | 'unknown';

/** The kernel's own bound on links followed in one lookup (Linux MAXSYMLINKS). */
const MAX_LINKS_FOLLOWED = 40;

/**
 * A member's path as the kernel walks it: `/`-separated, without `.` or empty components (`./a//b/` is
 * `a/b`). `\` is an ordinary character here, as it is on disk.
 */
export function pathKey(path: string): string {
  return path
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');
}

/**
 * Whether the link at `linkKey` whose target is `target` resolves inside the tree. `unknown` when the walk
 * meets a link whose target the tree does not know (a ZIP or 7z link before unpacking). A component that is
 * missing, or a file with more components after it, ends the kernel's lookup with an error; the rest is then
 * counted by its letters, so a later `..` still cannot climb out.
 */
export async function resolveLink(linkKey: string, target: string, lookup: TreeLookup): Promise<LinkVerdict> {
  if (target.startsWith('/')) return 'outside';
  const at = linkKey.split('/').slice(0, -1);
  // Components still to walk, the next one last.
  const pending = target.split('/').reverse();
  let followed = 0;
  let looking = true;
  while (pending.length > 0) {
    const part = pending.pop()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (at.length === 0) return 'outside';
      at.pop();
      continue;
    }
    at.push(part);
    if (!looking) continue;
    const node = await lookup(at.join('/'));
    if (node === undefined || node.kind === 'file') {
      looking = false;
      continue;
    }
    if (node.kind === 'folder') continue;
    if (node.target === undefined) return 'unknown';
    if (node.target.startsWith('/')) return 'outside';
    if (++followed > MAX_LINKS_FOLLOWED) return 'loop';
    at.pop();
    pending.push(...node.target.split('/').reverse());
  }
  return 'inside';
}
