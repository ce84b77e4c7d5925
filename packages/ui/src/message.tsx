import { messageText } from '@resumable/protocol';
import { memo, useContext, useRef, useState } from 'react';
import { TurnActions } from './answer-turn.js';
import type { ChatMessage } from './controller-types.js';
import { cx } from './cx.js';
import { TypingDots } from './icons.js';
import { InterruptSlot, InterruptsContext } from './interrupts/context.js';
import { type ChatLabels, useLabels } from './labels.js';
import { useChunk } from './lazy-chunk.js';
import { editorChunk } from './lazy-editor.js';
import { type CodeRenderer, type ImagePolicy, Markdown } from './markdown.js';
import { act, EndedBadge, type MessageActionHandlers, MessageActions } from './message-actions.js';
import { MessageFiles } from './message-files.js';
import { messageStatus } from './message-status.js';
import { ToolCall } from './tool-call.js';
import { ToolResultText } from './tool-result.js';

/**
 * Props of {@link Message} (and of a `messageComponent` that replaces it): the message, what
 * its action row does (the handlers it extends), and how to draw its content.
 */
export interface MessageProps extends MessageActionHandlers {
  /** The message to draw (one of the controller's `messages`). */
  message: ChatMessage;
  /**
   * For an assistant message with tool calls: the `role: 'tool'` message answering each call,
   * in the order of `message.toolCalls` (undefined while it has not come).
   */
  toolResults?: ReadonlyArray<ChatMessage | undefined>;
  /**
   * Which remote images in its Markdown may load (`true`: every http(s) image).
   * @default false (remote images are not loaded)
   */
  allowRemoteImages?: ImagePolicy;
  /**
   * Renders the body of each fenced code block instead of the built-in highlighter.
   * @default undefined (the built-in highlighter)
   */
  renderCode?: CodeRenderer | undefined;
  /**
   * Overrides of the words it shows: the speaker names (`user`, `assistant`, `tool`), the
   * Markdown's, tool calls', reasoning's, its action row's and its interrupts' keys. What
   * is left out keeps `DEFAULT_LABELS`.
   */
  labels?: Partial<ChatLabels>;
  /** Class names added to its element (which always has `rc-message rc-message--<role>`). */
  className?: string;
  /**
   * A part of an answer turn (the messages between two prompts: reasoning, tool calls, text,
   * the continuation after an approval) whose one action row `<MessageList>` draws under
   * the turn's last part: no action row or "ended" badge of its own. @default false
   */
  inTurn?: boolean;
}

/**
 * One message of the transcript: user, assistant (streaming Markdown, tool calls), reasoning
 * (collapsible) or a tool result. The element carries `data-message-id`, `data-role` and
 * `data-status`. Memoized on the message object's identity: the fold replaces only the
 * message that changed, so settled rows skip rendering while another one streams.
 */
export const Message = memo(function Message({
  message,
  toolResults,
  allowRemoteImages = false,
  renderCode,
  labels: labelsProp,
  className,
  onRegenerate,
  onEdit,
  onSwitchBranch,
  inTurn = false,
}: MessageProps) {
  const labels = useLabels(labelsProp);
  // Its tools show while the pointer is over it or focus is inside it (and by CSS on touch).
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const status = messageStatus(message);
  const role = message.role;
  if (role === 'system' || role === 'developer' || role === 'activity') return null;

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: hover and focus only reveal its buttons
    <div
      className={cx('rc-message', `rc-message--${role}`, className)}
      data-message-id={message.id}
      data-role={role}
      data-status={status}
      data-pending={message.pending}
      data-active={hovered || focused || undefined}
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setFocused(false);
      }}
    >
      {role === 'user' ? (
        <UserBody
          message={message}
          labels={labels}
          active={hovered || focused}
          onEdit={onEdit}
          onSwitchBranch={onSwitchBranch}
        />
      ) : role === 'assistant' ? (
        <AssistantBody
          message={message}
          toolResults={toolResults}
          labels={labels}
          allowRemoteImages={allowRemoteImages}
          renderCode={renderCode}
          onRegenerate={onRegenerate}
          onSwitchBranch={onSwitchBranch}
          inTurn={inTurn}
        />
      ) : role === 'reasoning' ? (
        <ReasoningBody
          text={messageText(message)}
          streaming={message.streaming === true}
          labels={labels}
        />
      ) : (
        <div className="rc-message__tool-result">
          <span className="rc-sr-only">{labels.tool}: </span>
          <pre className="rc-tool__json" data-part="result">
            <ToolResultText result={message} />
          </pre>
        </div>
      )}
      {role === 'tool' && status === 'error' ? (
        <span className="rc-badge rc-badge--error" data-part="ended">
          {labels.toolFailed}
        </span>
      ) : !inTurn && role !== 'assistant' && (status === 'stopped' || status === 'error') ? (
        <EndedBadge status={status} labels={labels} />
      ) : null}
      <InterruptSlot messageId={message.id} />
    </div>
  );
}, areMessagePropsEqual);

/** What a row re-renders for: its message, its tool results, or a prop (not a sibling's stream). */
export function areMessagePropsEqual(a: MessageProps, b: MessageProps): boolean {
  return (
    a.message === b.message &&
    sameItems(a.toolResults, b.toolResults) &&
    a.allowRemoteImages === b.allowRemoteImages &&
    a.renderCode === b.renderCode &&
    a.labels === b.labels &&
    a.className === b.className &&
    a.onRegenerate === b.onRegenerate &&
    a.onEdit === b.onEdit &&
    a.onSwitchBranch === b.onSwitchBranch &&
    a.inTurn === b.inTurn
  );
}

/** Two lists with the same items (by identity) in the same order. */
export function sameItems<T>(
  a: ReadonlyArray<T> | undefined,
  b: ReadonlyArray<T> | undefined,
): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  return a.every((item, i) => item === b[i]);
}

function UserBody({
  message,
  labels,
  active,
  onEdit,
  onSwitchBranch,
}: Pick<MessageActionHandlers, 'onEdit' | 'onSwitchBranch'> & {
  message: ChatMessage;
  labels: ChatLabels;
  /** Pointer over it or focus inside: its Edit button shows, so the editor is fetched. */
  active: boolean;
}) {
  const [editing, setEditing] = useState(false);
  // Until the editor's chunk is there, the prompt stays as it is (no empty frame).
  const editor = useChunk(editorChunk, Boolean(onEdit) && (editing || active));
  const editButton = useRef<HTMLButtonElement>(null);
  const text = messageText(message);
  // Back on the Edit button once the editor closes, so keyboard focus is not lost.
  const close = () => {
    setEditing(false);
    setTimeout(() => editButton.current?.focus(), 0);
  };
  if (editing && onEdit && editor) {
    return (
      <editor.MessageEditor
        initial={text}
        labels={labels}
        onCancel={close}
        onSave={(next) => {
          close();
          act(() => onEdit(message.id, next));
        }}
      />
    );
  }
  return (
    <>
      <span className="rc-sr-only">{labels.user}: </span>
      <div className="rc-message__bubble" data-part="text">
        {text}
      </div>
      <MessageFiles message={message} />
      {message.pending ? (
        <span className="rc-message__pending" data-part="pending">
          {message.pending === 'queued' ? labels.queued : labels.sending}
        </span>
      ) : (
        <MessageActions
          message={message}
          labels={labels}
          onSwitchBranch={onSwitchBranch}
          onStartEdit={onEdit ? () => setEditing(true) : undefined}
          editButtonRef={editButton}
        />
      )}
    </>
  );
}

function AssistantBody({
  message,
  toolResults,
  labels,
  allowRemoteImages,
  renderCode,
  onRegenerate,
  onSwitchBranch,
  inTurn,
}: Pick<MessageActionHandlers, 'onRegenerate' | 'onSwitchBranch'> & {
  message: ChatMessage;
  toolResults: ReadonlyArray<ChatMessage | undefined> | undefined;
  labels: ChatLabels;
  allowRemoteImages: ImagePolicy;
  renderCode: CodeRenderer | undefined;
  inTurn: boolean;
}) {
  const text = messageText(message);
  const calls = message.toolCalls ?? [];
  // An approval asked about a call decides its status (waiting, denied, cancelled).
  const interrupts = useContext(InterruptsContext)?.interrupts;
  const waiting = message.streaming && text === '' && calls.length === 0;
  return (
    <>
      <span className="rc-sr-only">{labels.assistant}: </span>
      {text !== '' || waiting ? (
        // data-text: the exact Markdown source, for tests and tools (the rendering loses it).
        <div className="rc-message__content" data-part="text" data-text={text}>
          {waiting ? (
            <TypingDots label={labels.thinking} />
          ) : (
            <Markdown
              text={text}
              streaming={message.streaming === true}
              allowRemoteImages={allowRemoteImages}
              renderCode={renderCode}
              labels={labels}
            />
          )}
        </div>
      ) : null}
      {calls.map((call, i) => (
        <ToolCall
          // Not the call's id: ids are the model's data and may repeat; calls only append.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          key={i}
          call={call}
          result={toolResults?.[i]}
          ended={message.ended}
          interrupt={interrupts?.findLast((interrupt) => interrupt.toolCallId === call.id)}
          labels={labels}
        />
      ))}
      {inTurn ? null : (
        // On its own, an answer is a turn of one message: the same row.
        <TurnActions
          messages={[message]}
          labels={labels}
          onRegenerate={onRegenerate}
          onSwitchBranch={onSwitchBranch}
        />
      )}
    </>
  );
}

/**
 * A model's reasoning, folded: open while it streams (the user sees the model think), folded
 * once done, unless the user chose otherwise. `<Reasoning>` (`@resumable/ui/turns`) is it on
 * its own.
 */
export function ReasoningBody({
  text,
  streaming,
  labels,
  className = 'rc-reasoning',
}: {
  text: string;
  streaming: boolean;
  labels: ChatLabels;
  className?: string;
}) {
  const [userOpen, setUserOpen] = useState<boolean | null>(null);
  const open = userOpen ?? streaming;
  return (
    <details
      className={className}
      open={open}
      onToggle={(e) => {
        const next = (e.currentTarget as HTMLDetailsElement).open;
        if (next !== open) setUserOpen(next);
      }}
    >
      <summary>{streaming ? labels.reasoningStreaming : labels.reasoning}</summary>
      <div className="rc-reasoning__text" data-part="text">
        {text}
      </div>
    </details>
  );
}
