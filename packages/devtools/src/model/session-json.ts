import type { ConversationView } from './views.js';

/** What "Copy as JSON" puts on the clipboard: a conversation's view, for a bug report. */
export interface SessionReport {
  readonly format: 'resumable-devtools/1';
  readonly copiedAt: string;
  /** The page it was copied from and its browser. */
  readonly page: { readonly url: string; readonly userAgent: string };
  readonly conversation: ConversationView;
}

/**
 * The report of `conversation` as indented JSON. It holds what the devtools show — ids,
 * offsets, statuses, timings, errors, the outbox's prompt texts cut to a line — and no
 * token or header: the client never tells those.
 */
export function sessionJson(
  conversation: ConversationView,
  page: SessionReport['page'],
  now = Date.now(),
): string {
  const report: SessionReport = {
    format: 'resumable-devtools/1',
    copiedAt: new Date(now).toISOString(),
    page,
    conversation,
  };
  return JSON.stringify(report, null, 2);
}
