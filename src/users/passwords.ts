/**
 * Password hashing: argon2id with OWASP's minimum parameters (19 MiB, 2 passes, 1 lane), about 40 ms per
 * hash on this project's machines. `verifyPassword` without a stored hash still spends one verification,
 * so an unknown email costs the same time as a wrong password and answers the same.
 */
import argon2 from 'argon2';
import { ValidationError } from '../errors/catalog.ts';

const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_LENGTH = 10;
/** Long enough for any passphrase; short enough that hashing one is no lever for a denial of service. */
export const PASSWORD_MAX_LENGTH = 256;

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new ValidationError([
      {
        field: 'password',
        message: `must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`,
      },
    ]);
  }
}

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, OPTIONS);
}

let dummy: Promise<string> | undefined;

/** False for a wrong password, a malformed hash, or no hash at all (after the same work). */
export async function verifyPassword(hash: string | undefined, password: string): Promise<boolean> {
  dummy ??= argon2.hash('presso: no such user', OPTIONS);
  const stored = hash ?? (await dummy);
  const matches = await argon2.verify(stored, password).catch(() => false);
  return hash !== undefined && matches;
}
