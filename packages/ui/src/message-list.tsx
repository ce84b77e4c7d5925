import { type ChatTurn, chatTurns } from '@resumable/hooks/turns';
import {
  type ComponentType,
  memo,
  type ReactNode,
  useCallback,
  useLayoutEffect,
  useMemo,
  useRef,
} from 'react';
import { AnswerTurn } from './answer-turn.js';
import type { ChatMessage } from './controller-types.js';
import { cx } from './cx.js';
import { TypingDots } from './icons.js';
import { type ChatLabels, useLabels } from './labels.js';
import { chunk, useChunk } from './lazy-chunk.js';
import { partsChunk, useHeldForParts } from './lazy-parts.js';
import { appendChunk, type CodeRenderer, type ImagePolicy } from './markdown.js';
import { areMessagePropsEqual, Message, type MessageProps, sameItems } from './message.js';
import type { MessageActionHandlers } from './message-actions.js';
import { messageFiles } from './message-file-parts.js';
import type { ToBottom } from './stick-to-bottom.js';

/**
 * Props of {@link MessageList}: the messages, the transcript's state, what each message's
 * action row does (the handlers it extends), and how messages are drawn.
 */
export interface MessageListProps extends MessageActionHandlers {
  /** The transcript, oldest first (the controller's `messages`). */
  messages: readonly ChatMessage[];
  /**
   * A reply is on its way: shows a typing indicator until its first message appears.
   * @default false
   */
  isStreaming?: boolean;
  /** More history exists before the first message: shows "load older" at the top. @default false */
  hasOlder?: boolean;
  /**
   * Older history is being fetched: the "load older" button is busy and disabled.
   * @default false
   */
  isLoadingOlder?: boolean;
  /**
   * The persisted transcript is still being read (a reload): shows nothing rather than the
   * empty state, so the first frame after it is the conversation itself.
   * @default false
   */
  isRestoring?: boolean;
  /** Called by the "load older" button (shown while `hasOlder`): fetch earlier history. */
  onLoadOlder?: () => void;
  /**
   * Which remote images in replies may load (`true`: every http(s) image).
   * @default false (remote images in replies are not loaded)
   */
  allowRemoteImages?: ImagePolicy;
  /**
   * Renders the body of each fenced code block instead of the built-in highlighter; pass a
   * stable function. @default undefined (the built-in highlighter)
   */
  renderCode?: CodeRenderer;
  /**
   * Renders each message; wrap or replace the default `<Message>`. It renders only when its
   * own message (or tool results) change.
   * @default Message
   */
  messageComponent?: ComponentType<MessageProps>;
  /**
   * Overrides of the words it shows: its own `transcript`, `empty`, `loadOlder`,
   * `loadingOlder`, `jumpToLatest` and `thinking`, and every message's. What is left out
   * keeps `DEFAULT_LABELS`.
   */
  labels?: Partial<ChatLabels>;
  /** Class names added to its outer `<div>` (which always has `rc-message-list`). */
  className?: string;
}

/**
 * The transcript, `role="log"`. Sticks to the bottom while a reply streams unless the user
 * scrolled up (then "Jump to latest" appears). Tool results are shown inside the call they
 * answer; a settled row never re-renders while another streams.
 */
export function MessageList({
  messages,
  isStreaming = false,
  hasOlder = false,
  isLoadingOlder = false,
  isRestoring = false,
  onLoadOlder,
  allowRemoteImages = false,
  renderCode,
  messageComponent = Message,
  labels: labelsProp,
  className,
  onRegenerate,
  onEdit,
  onSwitchBranch,
}: MessageListProps) {
  const labels = useLabels(labelsProp);
  const scrollRef = useRef<HTMLDivElement>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  // Following the reply: its chunk's, once there; until then the list only starts at its end.
  const stick = useChunk(stickChunk);
  const toBottom = useRef<ToBottom>(() => {
    const el = scrollRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  });
  const onStick = useCallback((go: ToBottom) => {
    toBottom.current = go;
  }, []);
  useLayoutEffect(() => void toBottom.current('instant'), []);
  // The parts not every transcript has (tool-call cards, ‹ n / m ›, files, keeping the place
  // when older history loads): fetched on first mount.
  const parts = useChunk(partsChunk);
  // The Markdown's appends, before the first reply streams (markdown.tsx's `appendChunk`).
  useChunk(appendChunk);
  const held = useHeldForParts(messages.length > 0, () => messages.some(hasParts));
  const rows = useRows(held ? [] : messages);
  // What every row is drawn with: one object while none of it changes, so a settled turn
  // (memoized on it) skips rendering while another streams, and renders when it changes.
  const shared = useMemo<RowShared>(
    () => ({
      component: messageComponent,
      allowRemoteImages,
      renderCode,
      labels,
      onRegenerate,
      onEdit,
      onSwitchBranch,
    }),
    [messageComponent, allowRemoteImages, renderCode, labels, onRegenerate, onEdit, onSwitchBranch],
  );
  const last = messages[messages.length - 1];
  // Your own new message is always brought into view, even if you had scrolled up to read.
  const sentId = last?.role === 'user' && last.pending ? last.id : null;
  useLayoutEffect(() => {
    if (sentId !== null) void toBottom.current('instant');
  }, [sentId]);
  // Between Send and the first event of the reply, nothing in the transcript is streaming.
  const awaitingReply = isStreaming && !held && (!last || last.role === 'user');

  return (
    <div className={cx('rc-message-list', className)}>
      <div
        ref={scrollRef}
        className="rc-message-list__scroll"
        role="log"
        aria-label={labels.transcript}
        // role="log" is polite by default, which would read every token aloud; the reply's
        // start and end are announced once by <ReplyAnnouncer> instead.
        aria-live="off"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
        tabIndex={0}
      >
        <div ref={contentRef} className="rc-message-list__content">
          {hasOlder ? (
            <div className="rc-message-list__older">
              <button
                type="button"
                className="rc-button rc-button--ghost"
                onClick={onLoadOlder}
                disabled={isLoadingOlder}
                aria-busy={isLoadingOlder || undefined}
              >
                {isLoadingOlder ? labels.loadingOlder : labels.loadOlder}
              </button>
            </div>
          ) : null}
          {messages.length === 0 && !isStreaming && !isRestoring ? (
            <p className="rc-message-list__empty">{labels.empty}</p>
          ) : null}
          {rows.map((row, i) =>
            row.kind === 'prompt' ? (
              renderRow(row.row, false, shared)
            ) : (
              <TurnRow
                key={row.key}
                rows={row.rows}
                messages={row.messages}
                // The reply on its way is the last turn's, whichever of its parts streams.
                streaming={isStreaming && i === rows.length - 1}
                shared={shared}
              />
            ),
          )}
          {awaitingReply ? (
            <div className="rc-message rc-message--assistant rc-message--placeholder">
              <TypingDots label={labels.thinking} />
            </div>
          ) : null}
        </div>
      </div>
      {stick ? (
        <stick.StickToBottom
          scroll={scrollRef}
          content={contentRef}
          onChange={onStick}
          jumpLabel={labels.jumpToLatest}
        />
      ) : null}
      {parts ? (
        <parts.KeepPlaceOnPrepend
          scroll={scrollRef}
          messages={messages}
          isLoadingOlder={isLoadingOlder}
        />
      ) : null}
    </div>
  );
}

/** A tool call, versions (‹ n / m ›) or files: drawn by the parts' chunk (lazy-parts.tsx). */
const hasParts = (m: ChatMessage) =>
  Boolean(m.toolCalls?.length) || (m.branch?.count ?? 0) > 1 || messageFiles(m).length > 0;

/**
 * The scrolling library, its binding and "Jump to latest" (stick-to-bottom.tsx), fetched on
 * first mount.
 */
export const stickChunk = chunk(() => import('./stick-to-bottom.js'));

type RowProps = MessageProps & { component: ComponentType<MessageProps> };

// Memoized here as well as in <Message>, so a custom `messageComponent` gets the guarantee too.
const MessageRow = memo(
  function MessageRow({ component: Component, ...props }: RowProps) {
    return <Component {...props} />;
  },
  (a, b) => a.component === b.component && areMessagePropsEqual(a, b),
);

interface MessageRowData {
  /**
   * Versions of one message (‹ n / m ›) share a row: switching keeps the row, hence the
   * focus on its ‹ › buttons. Siblings have one parent and the transcript shows one child of
   * each, but ids are data and may repeat: a key an earlier row has gets its position too.
   */
  key: string;
  message: ChatMessage;
  toolResults: ReadonlyArray<ChatMessage | undefined> | undefined;
}

/**
 * A row of the transcript: a prompt (or a message shown on its own), or an answer turn — the
 * messages up to the next prompt, drawn as one answer with one action row (`<AnswerTurn>`).
 */
type Row =
  | { kind: 'prompt'; row: MessageRowData }
  | {
      kind: 'turn';
      /** Its first message's row key: the versions of an answer share the turn. */
      key: string;
      rows: readonly MessageRowData[];
      /** The turn's messages that show (no system, developer or activity message). */
      messages: readonly ChatMessage[];
    };

/** Roles that render nothing: a turn made only of them has no action row. */
const HIDDEN_ROLES = new Set(['system', 'developer', 'activity']);

/** The props every row shares (`<MessageList>`'s own), one object while they are the same. */
interface RowShared extends MessageActionHandlers {
  component: ComponentType<MessageProps>;
  allowRemoteImages: ImagePolicy;
  renderCode: CodeRenderer | undefined;
  labels: ChatLabels;
}

function renderRow(
  { message, toolResults, key }: MessageRowData,
  inTurn: boolean,
  shared: RowShared,
): ReactNode {
  return (
    <MessageRow key={key} {...shared} message={message} toolResults={toolResults} inTurn={inTurn} />
  );
}

// Its rows and messages are the same arrays while the turn does not change (useRows), and
// `shared` one object: a settled turn skips rendering while another streams.
const TurnRow = memo(function TurnRow({
  rows,
  messages,
  streaming,
  shared,
}: {
  rows: readonly MessageRowData[];
  messages: readonly ChatMessage[];
  streaming: boolean;
  shared: RowShared;
}) {
  return (
    <AnswerTurn
      messages={messages}
      streaming={streaming}
      labels={shared.labels}
      onRegenerate={shared.onRegenerate}
      onSwitchBranch={shared.onSwitchBranch}
    >
      {rows.map((row) => renderRow(row, true, shared))}
    </AnswerTurn>
  );
});

/**
 * The rows of the transcript, from the hooks' turn view (`chatTurns`, the one derivation of
 * what a turn is): a prompt is a row; an answer turn is one row of rows, its messages in order.
 * Within a turn each assistant tool call is paired with the tool message answering it, and
 * those tool messages are not rows of their own (they render inside their call); a result
 * whose call is not in view (an older page) stays a row. Messages no turn holds (a run of
 * system or developer messages only) are rows on their own. Arrays are reused while their
 * items are the same, so memoized rows and turns keep seeing equal props.
 */
function useRows(messages: readonly ChatMessage[]): Row[] {
  const cache = useRef({
    derived: [] as readonly ChatTurn[],
    results: new Map<string, ReadonlyArray<ChatMessage | undefined>>(),
    turns: new Map<string, { rows: readonly MessageRowData[]; messages: readonly ChatMessage[] }>(),
  });
  return useMemo(() => {
    const derived = chatTurns({ messages }, cache.current.derived);
    // By object, not id: ids are data and may repeat.
    const turnOf = new Map<ChatMessage, ChatTurn>();
    for (const turn of derived) for (const m of turn.messages) turnOf.set(m, turn);
    const nextResults = new Map<string, ReadonlyArray<ChatMessage | undefined>>();
    const nextTurns = new Map<
      string,
      { rows: readonly MessageRowData[]; messages: readonly ChatMessage[] }
    >();
    const rows: Row[] = [];
    const keys = new Set<string>();
    const rowOf = (
      m: ChatMessage,
      toolResults?: ReadonlyArray<ChatMessage | undefined>,
    ): MessageRowData => {
      const base = m.branch?.siblingIds[0] ?? m.id;
      const key = keys.has(base) ? `${base}\n${keys.size}` : base;
      keys.add(key);
      return { key, message: m, toolResults };
    };
    for (const m of messages) {
      const turn = turnOf.get(m);
      if (turn === undefined || turn.role === 'user') {
        rows.push({ kind: 'prompt', row: rowOf(m) });
        continue;
      }
      // An answer turn is drawn where its first message is.
      if (turn.messages[0] !== m) continue;
      const results = new Map<string, ChatMessage>();
      const calls = new Set<string>();
      for (const t of turn.messages) {
        if (t.role === 'tool') results.set(t.toolCallId, t);
        else if (t.role === 'assistant') for (const c of t.toolCalls ?? []) calls.add(c.id);
      }
      const turnRows: MessageRowData[] = [];
      for (const t of turn.messages) {
        if (t.role === 'tool' && calls.has(t.toolCallId)) continue;
        let toolResults: ReadonlyArray<ChatMessage | undefined> | undefined;
        if (t.role === 'assistant' && t.toolCalls?.length) {
          const fresh = t.toolCalls.map((c) => results.get(c.id));
          const prev = cache.current.results.get(t.id);
          toolResults = prev && sameItems(prev, fresh) ? prev : fresh;
          nextResults.set(t.id, toolResults);
        }
        turnRows.push(rowOf(t, toolResults));
      }
      const shown = turn.messages.filter((t) => !HIDDEN_ROLES.has(t.role));
      const key = turnRows[0]!.key;
      const prev = cache.current.turns.get(key);
      const kept = {
        rows: prev && sameRows(prev.rows, turnRows) ? prev.rows : turnRows,
        messages: prev && sameItems(prev.messages, shown) ? prev.messages : shown,
      };
      nextTurns.set(key, kept);
      rows.push({ kind: 'turn', key, ...kept });
    }
    cache.current = { derived, results: nextResults, turns: nextTurns };
    return rows;
  }, [messages]);
}

/** Two row lists that draw the same: same keys, messages and tool results. */
function sameRows(a: readonly MessageRowData[], b: readonly MessageRowData[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (row, i) =>
        row.key === b[i]!.key &&
        row.message === b[i]!.message &&
        row.toolResults === b[i]!.toolResults,
    )
  );
}
