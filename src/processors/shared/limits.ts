/**
 * A kind's limits from its defaults and the fields a caller set (a test that tightens one cap, or the
 * composition root with a whole loaded section): undefined keeps the default, so one merge serves every kind.
 */
export function withOverrides<T extends object>(defaults: T, overrides: Partial<T>): T {
  const set = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  return { ...defaults, ...set };
}
