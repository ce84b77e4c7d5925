import type { StoreApi } from 'zustand/vanilla';
import type { RunApi } from './api.js';
import type { ChatState } from './chat-state.js';
import { toResumable } from './session.js';

/**
 * `GET /threads/:id/messages`: the newest page (`before` null) replaces the history, an
 * older one goes in front. A failure is the chat's error; the pages it has stay.
 */
export async function loadHistoryPage(
  store: StoreApi<ChatState>,
  api: RunApi,
  pageSize: number,
  before: string | null,
): Promise<void> {
  const { threadId, token } = store.getState();
  if (!threadId) return;
  store.setState({ isLoadingOlder: true });
  try {
    const page = await api.getThreadMessages(threadId, token, { before, limit: pageSize });
    const history =
      before === null ? page.messages : [...page.messages, ...store.getState().history];
    store.setState({
      history,
      nextBefore: page.nextBefore,
      hasOlder: page.nextBefore !== null,
      isLoadingOlder: false,
    });
  } catch (error) {
    store.setState({ isLoadingOlder: false, error: toResumable(error) });
  }
}
