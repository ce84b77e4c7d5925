// The turn view: a separate entry (`@resumable/hooks/turns`), so the hooks' first paint does
// not carry it for apps that draw `messages` themselves or use @resumable/ui's drop-in chat.

export type {
  ChatTurn,
  ChatTurnsInput,
  FilePart,
  InterruptPart,
  ReasoningPart,
  TextPart,
  ToolCallStatus,
  ToolPart,
  ToolResult,
  TurnPart,
} from '../core/turns/chat-turns.js';
export { chatTurns, toolCallStatus } from '../core/turns/chat-turns.js';
export { useChatTurns } from '../react/use-chat-turns.js';
