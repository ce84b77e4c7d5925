'use client';

// A tool call's status is the hooks' turn view's (one name, one derivation).
export { type ToolCallStatus, toolCallStatus } from '@resumable/hooks/turns';
export {
  type AllLabels,
  type AttachmentLabels,
  DEFAULT_ATTACHMENT_LABELS,
  type ThreadListLabels,
} from './attachment-labels.js';
export type { BranchNavProps } from './branch-nav.js';
export { ChatRoot, type ChatRootProps } from './chat-root.js';
export { Composer, type ComposerProps } from './composer.js';
export {
  ConnectionStatus,
  type ConnectionStatusProps,
  connectionStatusText,
  errorText,
  type StatusError,
} from './connection-status.js';
// The hooks' shapes the components take (from `@resumable/hooks/core`), named here so a
// custom layout types its props without a second import.
export type {
  BranchInfo,
  ChatController,
  ChatMessage,
  ConnectionInfo,
  ConnectionPhase,
  OutboxItem,
} from './controller-types.js';
export { CopyButton, type CopyButtonProps } from './copy-button.js';
export { DEFAULT_INTERRUPT_LABELS, type InterruptLabels } from './interrupt-labels.js';
export { InterruptAnnouncer } from './interrupts/announcer.js';
export { AnsweredInterrupt, answeredText } from './interrupts/answered.js';
export type { InterruptCardProps } from './interrupts/card-props.js';
export {
  InterruptSlot,
  InterruptsContext,
  type InterruptsValue,
  UnanchoredInterrupts,
} from './interrupts/context.js';
export { InterruptCard } from './interrupts/interrupt-card.js';
export { type ChatLabels, DEFAULT_LABELS, useLabels } from './labels.js';
export { MessageEditor, type MessageEditorProps } from './lazy-editor.js';
export { BranchNav } from './lazy-parts.js';
export { AttachmentTray, type AttachmentTrayProps } from './lazy-tray.js';
export {
  type CodeRenderer,
  type ImagePolicy,
  Markdown,
  type MarkdownProps,
} from './markdown.js';
export { Message, type MessageProps } from './message.js';
export {
  branchActions,
  type MessageActionHandlers,
  MessageActions,
  type MessageActionsProps,
} from './message-actions.js';
export {
  type FileAccess,
  FileAccessContext,
  type MessageFile,
  messageFiles,
} from './message-file-parts.js';
export { MessageFiles, type MessageFilesProps } from './message-files.js';
export { MessageList, type MessageListProps } from './message-list.js';
export { type MessageStatus, messageStatus } from './message-status.js';
export { ReplyAnnouncer, type ReplyAnnouncerProps } from './reply-announcer.js';
export { ResumableChat, type ResumableChatProps } from './resumable-chat.js';
export {
  ResumableChatView,
  type ResumableChatViewOptions,
  type ResumableChatViewProps,
} from './resumable-chat-view.js';
export { ToolCall, type ToolCallProps } from './tool-call.js';
export { toolResultText } from './tool-result.js';
