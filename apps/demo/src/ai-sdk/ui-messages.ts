import type { ChatMessage } from '@resumable/ui';
import {
  type DynamicToolUIPart,
  getToolName,
  isToolUIPart,
  type ToolUIPart,
  type UIMessage,
} from 'ai';

/**
 * The AI SDK's `UIMessage`s as the messages the kit's parts draw (`<MessageList>`,
 * `<Message>`): a user message as it is; each part of a reply as a message of its own —
 * text (streaming Markdown), reasoning (folded once done), a tool call (its card: name,
 * arguments, status) and its result or error inside it. The parts of one reply are one
 * answer turn in the list, so the reply keeps its one action row.
 *
 * A reply's messages are made again only when the reply changes: `useChat` keeps the
 * settled ones, so their rows do not render while another streams.
 */
export function chatMessagesOf(messages: readonly UIMessage[]): ChatMessage[] {
  return messages.flatMap(messagesOf);
}

const made = new WeakMap<UIMessage, ChatMessage[]>();

function messagesOf(message: UIMessage): ChatMessage[] {
  const known = made.get(message);
  if (known) return known;
  const out = message.role === 'user' ? [userMessage(message)] : replyMessages(message);
  made.set(message, out);
  return out;
}

function userMessage(message: UIMessage): ChatMessage {
  const text = message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
  return { id: message.id, role: 'user', content: text } as ChatMessage;
}

function replyMessages(message: UIMessage): ChatMessage[] {
  const out: ChatMessage[] = [];
  message.parts.forEach((part, i) => {
    // A part's place in its reply is its id: ids of the model's own may repeat.
    const id = `${message.id}:${i}`;
    const streaming = 'state' in part && part.state === 'streaming' ? { streaming: true } : {};
    if (part.type === 'text') {
      out.push({ id, role: 'assistant', content: part.text, ...streaming } as ChatMessage);
    } else if (part.type === 'reasoning') {
      out.push({ id, role: 'reasoning', content: part.text, ...streaming } as ChatMessage);
    } else if (isToolUIPart(part)) {
      out.push(...toolMessages(id, part));
    }
  });
  return out;
}

/** A tool part: the call (arguments streaming until whole), then its result or error. */
function toolMessages(id: string, part: ToolUIPart | DynamicToolUIPart): ChatMessage[] {
  const open = part.state === 'input-streaming';
  // While they stream, the arguments may be only the raw text so far.
  const input = part.input ?? ('rawInput' in part ? part.rawInput : undefined);
  const call = {
    id: part.toolCallId,
    type: 'function',
    function: { name: getToolName(part), arguments: argumentsText(input) },
    ...(open ? { streaming: true } : {}),
  };
  const messages = [{ id, role: 'assistant', content: '', toolCalls: [call] } as ChatMessage];
  const result = { id: `${id}:result`, role: 'tool', toolCallId: part.toolCallId };
  if (part.state === 'output-available') {
    messages.push({ ...result, content: JSON.stringify(part.output ?? null) } as ChatMessage);
  } else if (part.state === 'output-error') {
    messages.push({ ...result, content: '', error: part.errorText } as ChatMessage);
  }
  return messages;
}

function argumentsText(input: unknown): string {
  if (input === undefined) return '';
  return typeof input === 'string' ? input : JSON.stringify(input);
}
