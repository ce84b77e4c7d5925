import { toResumable } from '../base/errors.js';
import type { ConversationHost } from './host.js';
import { sharesTabs } from './host.js';

/**
 * Starts following the conversation (its thread stream, and tab leadership where the
 * browser has it) for as long as the chat is held; returns the stop. The code lives behind a
 * dynamic `import()`: a page showing a persisted transcript does not load it first. While it
 * loads, a sharing tab opens no stream of its own (`pending`), so a tab that turns out to
 * follow never opened one.
 */
export function startConversation(host: ConversationHost): () => void {
  if (host.options.followThread === false && host.options.shareTabs === false) return () => {};
  const share = sharesTabs(host);
  if (share) {
    host.run.shared.setRole('pending');
    host.role(false);
  }
  let stopped = false;
  let close: (() => void) | null = null;
  import('./link.js')
    .then(({ linkConversation }) => {
      if (!stopped) close = linkConversation(host, share);
    })
    .catch((error) => {
      host.run.shared.setRole('solo');
      host.role(true);
      host.warn(toResumable(error));
    });
  return () => {
    stopped = true;
    close?.();
    host.run.shared.release();
  };
}
