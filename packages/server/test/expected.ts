import { replyTokens } from '../src/agents/scripted.js';

/** The exact log (JSON texts, offsets 1..N) of a scripted run without a tool call. */
export function expectedLog(
  ids: { runId: string; threadId: string },
  text: string,
  tokens: number,
  seed = 0,
): string[] {
  const { runId, threadId } = ids;
  const messageId = `msg-${runId}`;
  return [
    JSON.stringify({ type: 'RUN_STARTED', threadId, runId }),
    JSON.stringify({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' }),
    ...replyTokens(text, tokens, seed).map((delta) =>
      JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta }),
    ),
    JSON.stringify({ type: 'TEXT_MESSAGE_END', messageId }),
    JSON.stringify({ type: 'RUN_FINISHED', threadId, runId, outcome: { type: 'success' } }),
  ];
}

/** The assistant's full reply text. */
export function expectedReply(text: string, tokens: number, seed = 0): string {
  return replyTokens(text, tokens, seed).join('');
}
