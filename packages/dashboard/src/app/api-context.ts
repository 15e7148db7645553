import type { AgentRunClient } from '@agentrun/client';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/** The signed-in client, for every page. */
export const ApiContext = createContext<AgentRunClient | undefined>(undefined);

export const useClient = (): AgentRunClient => {
  const client = useContext(ApiContext);
  if (!client) throw new Error('useClient outside a signed-in app');
  return client;
};
