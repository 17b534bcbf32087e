/**
 * `presso user create`: a dashboard user for an account (`--account ID`), or for a new account made in the
 * same step (`--name N`: the first user of a fresh install, one command). The password is read from stdin
 * (piped, or typed at a prompt that does not echo); with `--invite`, no password: a one-time link is printed
 * instead, for the person to choose theirs. Output is JSON for scripts; the password is never printed.
 */
import { createInterface } from 'node:readline';
import type { Config } from '../runtime/config.ts';
import { USER_ROLES, type UserRole } from '../users/user-store.ts';
import { withServices } from './admin-commands.ts';
import { UsageError } from './usage-error.ts';

export interface UserOptions {
  account?: string | undefined;
  name?: string | undefined;
  email?: string | undefined;
  role?: string | undefined;
  invite?: boolean | undefined;
}

export const USER_USAGE =
  'presso user create (--account ID | --name NEW_ACCOUNT) --email E [--role owner|member|operator] [--invite]';

/** All of stdin when piped (one trailing newline dropped); a prompt without echo at a terminal. */
async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  process.stderr.write('Password: ');
  // Typed characters are not echoed: readline writes its output through this, which is silenced.
  (prompt as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {};
  const password = await new Promise<string>((resolve) => prompt.question('', resolve));
  prompt.close();
  process.stderr.write('\n');
  return password;
}

function parseRole(text: string | undefined): UserRole {
  if (text === undefined) return 'owner';
  if (!(USER_ROLES as readonly string[]).includes(text))
    throw new UsageError(`--role must be one of ${USER_ROLES.join(', ')}`);
  return text as UserRole;
}

export async function userCommand(
  config: Config,
  sub: string | undefined,
  options: UserOptions,
): Promise<number> {
  if (sub !== 'create') throw new UsageError(`Usage: ${USER_USAGE}`);
  if (!options.email) throw new UsageError('user create needs --email');
  if ((options.account === undefined) === (options.name === undefined))
    throw new UsageError('user create needs either --account ID or --name NEW_ACCOUNT');
  const role = parseRole(options.role);
  const password = options.invite ? undefined : await readPassword();
  return withServices(config, async ({ accounts, users }) => {
    // A new account is made only once the user can be: a refused email leaves nothing behind.
    await users.checkNewUser(options.email as string, password);
    const created = options.name === undefined ? undefined : await accounts.createAccount(options.name);
    const accountId = created?.account.id ?? (options.account as string);
    const account = created
      ? {
          account: { id: created.account.id, name: created.account.name },
          key: created.key,
          webhookSecret: created.account.webhookSecret,
        }
      : {};
    if (password === undefined) {
      const invite = await users.invite(accountId, options.email as string, role);
      print({ ...account, invite: { url: invite.url, expiresAt: new Date(invite.expiresAt).toISOString() } });
    } else {
      const user = await users.createUser(accountId, options.email as string, role, password);
      print({ ...account, user: { id: user.id, accountId, email: user.email, role: user.role } });
    }
    return 0;
  });
}

function print(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}
