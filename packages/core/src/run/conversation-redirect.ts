import type { ConversationRedirectResponse } from '../models/run.js';
import type { Store } from '../store/store.js';
import { isTerminal } from './state-machine.js';

/**
 * `GET /agent/conversations/{conversationId}/redirect` (docs/run-api.md, "Conversation
 * redirect"): public, so it tells nothing about a conversation whose name can be guessed.
 *
 * A conversation agentrun started is named by the ID of its first run (run/new-run.ts), an
 * unguessable random UUID; a caller may name one itself (`conversation_id: "conv-1"`), and such a
 * name is answered `{}`, as is an unknown one. For a conversation agentrun named, the newest run of
 * the first run's team in it gives its `session_id` while it is not finished; `{}` otherwise.
 * Runs of another team that joined the conversation by its name are never looked at.
 */
export async function conversationRedirect(store: Store, conversationId: string): Promise<ConversationRedirectResponse> {
  const first = await store.runs.get(conversationId);
  if (!first || first.conversationId !== conversationId) return {};
  const [newest] = await store.runs.list({
    teamUid: first.teamUid,
    filter: { conversationId },
    sortBy: 'created_at',
    order: 'desc',
    limit: 1,
  });
  return newest && !isTerminal(newest.state) && newest.sessionId !== null ? { session_id: newest.sessionId } : {};
}
