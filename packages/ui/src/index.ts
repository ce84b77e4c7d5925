export {
  type AllLabels,
  type AttachmentLabels,
  DEFAULT_ATTACHMENT_LABELS,
  type ThreadListLabels,
} from './attachment-labels.js';
export { BranchNav, type BranchNavProps } from './branch-nav.js';
export { ChatRoot, type ChatRootProps } from './chat-root.js';
export { Composer, type ComposerProps } from './composer.js';
export { AttachmentTray, rejectedText } from './composer-attachments.js';
export {
  ConnectionStatus,
  type ConnectionStatusProps,
  connectionStatusText,
  errorText,
  type StatusError,
} from './connection-status.js';
export type * from './controller-types.js';
export { CopyButton, type CopyButtonProps } from './copy-button.js';
export { InterruptAnnouncer } from './interrupts/announcer.js';
export { AnsweredInterrupt, answeredText } from './interrupts/answered.js';
export { ApprovalCard } from './interrupts/approval-card.js';
export {
  InterruptSlot,
  InterruptsContext,
  type InterruptsValue,
  UnanchoredInterrupts,
} from './interrupts/context.js';
export { InterruptCard, type InterruptCardProps } from './interrupts/interrupt-card.js';
export { DEFAULT_INTERRUPT_LABELS, type InterruptLabels } from './interrupts/labels.js';
export { QuestionCard } from './interrupts/question-card.js';
export { answerOf, type FormField, type FormShape, formOf } from './interrupts/schema-form.js';
export { ToolRunCard } from './interrupts/tool-run-card.js';
export { type ChatLabels, DEFAULT_LABELS, useLabels } from './labels.js';
export {
  type CodeRenderer,
  type ImagePolicy,
  Markdown,
  type MarkdownProps,
  splitBlocks,
} from './markdown.js';
export { Message, type MessageProps } from './message.js';
export {
  branchActions,
  type MessageActionHandlers,
  MessageActions,
  type MessageActionsProps,
} from './message-actions.js';
export { MessageEditor, type MessageEditorProps } from './message-editor.js';
export {
  type FileAccess,
  FileAccessContext,
  fileSrc,
  type MessageFile,
  MessageFiles,
  messageFiles,
} from './message-files.js';
export { MessageList, type MessageListProps } from './message-list.js';
export { type MessageStatus, messageStatus } from './message-status.js';
export { ReplyAnnouncer, type ReplyAnnouncerProps } from './reply-announcer.js';
export { ResumableChat, type ResumableChatProps } from './resumable-chat.js';
export {
  ResumableChatView,
  type ResumableChatViewOptions,
  type ResumableChatViewProps,
} from './resumable-chat-view.js';
export {
  prettyJson,
  ToolCall,
  type ToolCallProps,
  type ToolCallStatus,
  toolCallStatus,
  toolResultText,
} from './tool-call.js';
