// The turn view: a separate entry (`@resumable/hooks/turns`), so the hooks' first paint does
// not carry it for apps that draw `messages` themselves or use @resumable/ui's drop-in chat.
// The shapes a turn holds (its messages, branch and interrupts) are named here too.

export type { BranchInfo, ChatMessage } from '../core/conversation/state.js';
export type { ChatInterrupt } from '../core/interrupts/chat-interrupts.js';
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
export { chatTurns, messageFiles, toolCallStatus } from '../core/turns/chat-turns.js';
export { useChatTurns } from '../react/use-chat-turns.js';
