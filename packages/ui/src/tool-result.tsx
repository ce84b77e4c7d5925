import { messageText } from '@resumable/protocol';
import type { ChatMessage } from './controller-types.js';
import { PrettyJson, prettyJson } from './pretty-json.js';

/** The text of a tool message: its `error` when it failed, else its content (pretty JSON). */
export function toolResultText(result: ChatMessage): string {
  return errorOf(result) ?? prettyJson(messageText(result));
}

const errorOf = (result: ChatMessage) =>
  'error' in result && typeof result.error === 'string' ? result.error : null;

/** toolResultText as an element: the JSON is indented again only when it changes. */
export function ToolResultText({ result }: { result: ChatMessage }) {
  return errorOf(result) ?? <PrettyJson text={messageText(result)} />;
}
