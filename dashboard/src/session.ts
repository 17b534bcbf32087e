/** The signed-in session, shared by every page (the user, the account, the role checks). */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Role, Session } from './api.ts';

export interface SessionState {
  session: Session;
  signedOut(): void;
}

export const SessionContext = createContext<SessionState | undefined>(undefined);

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside a signed-in page');
  return state;
}

/** Owners change keys, connectors, the webhook secret and users; operators may everything. */
export function canManage(role: Role): boolean {
  return role === 'owner' || role === 'operator';
}
