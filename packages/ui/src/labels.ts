import { useRef } from 'react';
import { errorWords } from './error-words.js';
import { DEFAULT_INTERRUPT_LABELS, type InterruptLabels } from './interrupt-labels.js';

/**
 * Every string the UI shows or announces, for translation. Strings that carry numbers are
 * functions. Pass a partial object as `labels`; what you leave out keeps the English default.
 */
export interface ChatLabels extends InterruptLabels {
  /** Accessible name of the composer's textarea. @default 'Message' */
  messageInput: string;
  /** Placeholder of the composer's empty textarea. @default 'Send a message…' */
  placeholder: string;
  /** Accessible name (and tooltip) of the composer's send button. @default 'Send' */
  send: string;
  /** Accessible name of the composer's stop button, shown while a reply streams. @default 'Stop' */
  stop: string;
  /**
   * Hint under the composer while the browser is offline: what is sent now waits.
   * @default 'Messages you send now will go out when you are back online.'
   */
  offlineHint: string;
  /**
   * Hint under the composer while a prompt is typed and the assistant waits for an answer
   * (an approval, a question): sending the prompt cancels the `count` open ones.
   */
  promptCancelsInterrupts: (count: number) => string;
  /** Accessible name of the transcript (`role="log"`). @default 'Conversation' */
  transcript: string;
  /** Shown in an empty transcript. @default 'Send a message to start the conversation.' */
  empty: string;
  /**
   * The button at the top of the transcript that fetches earlier history.
   * @default 'Load older messages'
   */
  loadOlder: string;
  /** The same button while older history is loading. @default 'Loading older messages…' */
  loadingOlder: string;
  /**
   * The button that scrolls back to the end of the transcript, shown when the user has
   * scrolled up. @default 'Jump to latest'
   */
  jumpToLatest: string;
  /** Visually hidden speaker name read before each user message. @default 'You' */
  user: string;
  /** Visually hidden speaker name read before each assistant message. @default 'Assistant' */
  assistant: string;
  /**
   * Visually hidden speaker name read before a tool result drawn as its own row (one whose
   * call is not in the transcript). @default 'Tool'
   */
  tool: string;
  /** Summary of a finished reasoning block. @default 'Reasoning' */
  reasoning: string;
  /** Summary of a reasoning block that is still streaming. @default 'Thinking…' */
  reasoningStreaming: string;
  /**
   * Accessible name of the typing dots shown while the assistant has not produced a token yet
   * (screen readers also hear `replying`). @default 'Thinking…'
   */
  thinking: string;
  /** Marks a reply the user stopped; its text is kept. @default 'Stopped' */
  stopped: string;
  /**
   * Marks a reply cut short by an error (distinct from stopped).
   * @default 'Interrupted by an error'
   */
  errored: string;
  /** An optimistic user message whose POST is in flight. @default 'Sending…' */
  sending: string;
  /**
   * A user message waiting in the outbox (offline, the server not answering, or behind the
   * reply in progress): it goes out on its own. @default 'Waiting to send'
   */
  queued: string;
  /** The copy button of a code block. @default 'Copy code' */
  copyCode: string;
  /** The copy button in a message's action row. @default 'Copy message' */
  copyMessage: string;
  /** What a copy button says for a moment after it copied. @default 'Copied' */
  copied: string;
  /**
   * Stand-in for a remote image that was not loaded (see `allowRemoteImages`), by its alt
   * text (empty when it has none). @default 'Image not loaded: <alt>' or 'Image not loaded'
   */
  imageBlocked: (alt: string) => string;
  /** Accessible name of a table's scroll box (it scrolls sideways when wide). @default 'Table' */
  table: string;
  /**
   * Accessible name of a code block's scroll box, by its language (null when it has none).
   * @default 'Code' or, e.g., 'ts code'
   */
  codeBlock: (language: string | null) => string;
  /** A tool call's state: an approval for it is open. @default 'Waiting for approval' */
  toolAwaitingApproval: string;
  /** A tool call's state: its result has not come. @default 'Running' */
  toolRunning: string;
  /** A tool call's state: its result came. @default 'Done' */
  toolDone: string;
  /** A tool call's state: its approval was denied (it did not run). @default 'Denied' */
  toolDenied: string;
  /**
   * A tool call's state: its approval was cancelled (a new prompt, Cancel), or the reply was
   * stopped before its result. @default 'Cancelled'
   */
  toolCancelled: string;
  /**
   * A tool call's state: its result is an error, or the reply failed before it.
   * @default 'Failed'
   */
  toolFailed: string;
  /** Heading over a tool call's arguments (in its card and in an approval). @default 'Arguments' */
  toolArguments: string;
  /** Heading over a tool call's result in its card. @default 'Result' */
  toolResult: string;
  /**
   * Polite announcement (`<ReplyAnnouncer>`) when a reply starts streaming, once per reply.
   * @default 'Assistant is replying'
   */
  replying: string;
  /** Polite announcement when a reply ends on its own. @default 'Reply finished' */
  replyFinished: string;
  /**
   * Polite announcement when a reply ends because it was stopped (cancelled).
   * @default 'Reply stopped'
   */
  replyStopped: string;
  /**
   * Connection status line (`role="status"`) while the stream reconnects: the attempt number
   * and the seconds until the next try, or null when none is scheduled.
   * @default 'Reconnecting (attempt <attempt>), next try in <seconds> s'
   */
  reconnecting: (attempt: number, seconds: number | null) => string;
  /**
   * The browser is online but the server does not answer. `seconds` until the next try, or
   * null when none is scheduled.
   */
  unreachable: (seconds: number | null) => string;
  /**
   * Status line shown only when the browser itself is offline. `running`: a reply was in
   * progress (it keeps going on the server). @default 'You are offline'
   */
  offline: (running: boolean) => string;
  /**
   * Status line for a few seconds after a reconnect the user was told about: how many events
   * the resumed stream caught up. @default 'Reconnected — caught up <events> events'
   */
  resumed: (events: number) => string;
  /**
   * A reply streams in this tab through another tab of the app, which holds the
   * conversation's one connection. @default 'Live via another tab'
   */
  viaTab: string;
  /**
   * The alert when the run's worker died (`agent_lost`): the partial answer is kept.
   * @default 'The assistant stopped unexpectedly (run lost). The partial answer is kept.'
   */
  agentLost: string;
  /**
   * Any other error, as shown in the `role="alert"` notice. `message` is the technical
   * detail (shown as the notice's tooltip); the default says what `code` means in plain words.
   */
  error: (message: string, code: string | undefined) => string;
  /** The button beside an error alert: retries the failed send or run. @default 'Retry' */
  retry: string;
  /** Beside "can't reach the server": try at once instead of waiting. @default 'Retry now' */
  retryNow: string;
  /** Stops the reply in progress (also the Esc key). @default 'Stop (Esc)' */
  stopHint: string;
  /** Asks for a new answer to the same prompt, kept beside the old one. @default 'Regenerate' */
  regenerate: string;
  /** Opens the inline editor on a prompt. @default 'Edit message' */
  editMessage: string;
  /** Accessible name of the inline editor's text box. @default 'Edit your message' */
  editInput: string;
  /** Closes the inline editor unchanged (also Esc). @default 'Cancel' */
  cancelEdit: string;
  /** Sends the edited prompt on a new branch (also Ctrl/Cmd+Enter). @default 'Save' */
  saveEdit: string;
  /** Branch navigation, to the version before. @default 'Previous version' */
  previousBranch: string;
  /** Branch navigation, to the version after. @default 'Next version' */
  nextBranch: string;
  /** The visible position among versions (1-based), e.g. `2 / 3`. */
  branchPosition: (position: number, count: number) => string;
  /** Accessible name of the ‹ n / m › group (1-based), e.g. `Version 2 of 3`. */
  branchNav: (position: number, count: number) => string;
}

/**
 * The English words of every {@link ChatLabels} key (interrupt labels included): what a key
 * left out of a `labels` prop falls back to. Spread it to derive a translation.
 */
export const DEFAULT_LABELS: ChatLabels = {
  ...DEFAULT_INTERRUPT_LABELS,
  messageInput: 'Message',
  placeholder: 'Send a message…',
  send: 'Send',
  stop: 'Stop',
  offlineHint: 'Messages you send now will go out when you are back online.',
  promptCancelsInterrupts: (count) =>
    count === 1
      ? 'Sending this cancels the request above: answer it first to keep it.'
      : `Sending this cancels the ${count} requests above: answer them first to keep them.`,
  transcript: 'Conversation',
  empty: 'Send a message to start the conversation.',
  loadOlder: 'Load older messages',
  loadingOlder: 'Loading older messages…',
  jumpToLatest: 'Jump to latest',
  user: 'You',
  assistant: 'Assistant',
  tool: 'Tool',
  reasoning: 'Reasoning',
  reasoningStreaming: 'Thinking…',
  thinking: 'Thinking…',
  stopped: 'Stopped',
  errored: 'Interrupted by an error',
  sending: 'Sending…',
  queued: 'Waiting to send',
  copyCode: 'Copy code',
  copyMessage: 'Copy message',
  copied: 'Copied',
  imageBlocked: (alt) => (alt ? `Image not loaded: ${alt}` : 'Image not loaded'),
  table: 'Table',
  codeBlock: (language) => (language ? `${language} code` : 'Code'),
  toolAwaitingApproval: 'Waiting for approval',
  toolRunning: 'Running',
  toolDone: 'Done',
  toolDenied: 'Denied',
  toolCancelled: 'Cancelled',
  toolFailed: 'Failed',
  toolArguments: 'Arguments',
  toolResult: 'Result',
  replying: 'Assistant is replying',
  replyFinished: 'Reply finished',
  replyStopped: 'Reply stopped',
  reconnecting: (attempt, seconds) =>
    seconds === null
      ? `Reconnecting (attempt ${attempt})…`
      : `Reconnecting (attempt ${attempt}), next try in ${seconds} s`,
  unreachable: (seconds) =>
    seconds === null
      ? 'Can’t reach the server'
      : `Can’t reach the server — retrying in ${seconds} s`,
  offline: (running) =>
    running ? 'Offline — the answer keeps going on the server' : 'You are offline',
  viaTab: 'Live via another tab',
  resumed: (events) => `Reconnected — caught up ${events} ${events === 1 ? 'event' : 'events'}`,
  agentLost: 'The assistant stopped unexpectedly (run lost). The partial answer is kept.',
  error: (_message, code) => errorWords(code),
  retry: 'Retry',
  retryNow: 'Retry now',
  stopHint: 'Stop (Esc)',
  regenerate: 'Regenerate',
  editMessage: 'Edit message',
  editInput: 'Edit your message',
  cancelEdit: 'Cancel',
  saveEdit: 'Save',
  previousBranch: 'Previous version',
  nextBranch: 'Next version',
  branchPosition: (position, count) => `${position} / ${count}`,
  branchNav: (position, count) => `Version ${position} of ${count}`,
};

/**
 * Defaults merged with the caller's labels, kept referentially stable while the caller's
 * values are shallow-equal: an inline `labels={{…}}` must not re-render every memoized row.
 */
export function useLabels(labels: Partial<ChatLabels> | undefined): ChatLabels {
  return useMergedLabels(DEFAULT_LABELS, labels);
}

/** `defaults` merged with the caller's labels, stable as `useLabels` keeps them. */
export function useMergedLabels<T extends object>(defaults: T, labels: Partial<T> | undefined): T {
  const ref = useRef<{ input: Partial<T> | undefined; merged: T } | null>(null);
  const prev = ref.current;
  if (prev && shallowEqual(prev.input, labels)) return prev.merged;
  const merged = labels ? { ...defaults, ...labels } : defaults;
  ref.current = { input: labels, merged };
  return merged;
}

function shallowEqual(a: object | undefined, b: object | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if ((a as Record<string, unknown>)[k] !== (b as Record<string, unknown>)[k]) return false;
  }
  return true;
}
