/** Hash routing (`#/jobs/abc`): the server serves one index.html, so every page is a hash of it. */
import { useEffect, useState } from 'preact/hooks';

export type RouteName =
  | 'overview'
  | 'try'
  | 'jobs'
  | 'job'
  | 'keys'
  | 'connectors'
  | 'webhooks'
  | 'users'
  | 'operator'
  | 'invite'
  | 'sign-in';

export interface Route {
  name: RouteName;
  /** The id of `#/jobs/:id` or the token of `#/invite/:token`. */
  param?: string;
}

const SIMPLE: Record<string, RouteName> = {
  overview: 'overview',
  try: 'try',
  jobs: 'jobs',
  keys: 'keys',
  connectors: 'connectors',
  webhooks: 'webhooks',
  users: 'users',
  operator: 'operator',
  'sign-in': 'sign-in',
};

export function parseHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/');
  const [first = '', second] = parts;
  if (first === 'jobs' && second) return { name: 'job', param: decodeURIComponent(second) };
  if (first === 'invite' && second) return { name: 'invite', param: decodeURIComponent(second) };
  return { name: SIMPLE[first] ?? 'overview' };
}

export function navigate(path: string): void {
  location.hash = `#/${path}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
