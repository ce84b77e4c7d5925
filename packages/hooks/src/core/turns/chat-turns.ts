import type { MessageEnd } from '@resumable/protocol';
import { messageText } from '@resumable/protocol';
import type { BranchInfo, ChatMessage } from '../conversation/state.js';
import type { ChatInterrupt } from '../interrupts/chat-interrupts.js';

/**
 * The turn view: a conversation as a custom UI draws it — each prompt one turn, each answer
 * (everything between two prompts: reasoning, tool calls and their results, text, the
 * continuation after an approval) one turn, with its parts in order. The shape of the AI
 * SDK's `UIMessage.parts`, derived from the AG-UI messages the chat folds (which stay the
 * truth: `messages`), the interrupts and whether a reply is on its way. Pure, no I/O.
 */

/**
 * Where a tool call stands: an approval for it is open (`awaiting_approval`), it runs, it
 * returned (`done`), the person denied it, it was cancelled (its approval by a new prompt or
 * Cancel, or the reply stopped before its result), or it failed (an error result, or the
 * reply failed before one).
 */
export type ToolCallStatus =
  | 'awaiting_approval'
  | 'running'
  | 'done'
  | 'denied'
  | 'cancelled'
  | 'failed';

/** What a tool returned: the `role: 'tool'` message answering the call. */
export interface ToolResult {
  /** The tool message's id. */
  messageId: string;
  /** Its content as text (usually JSON). */
  content: string;
  /** The error it carries when the tool failed, else null. */
  error: string | null;
}

/** An answer's or a prompt's text: one AG-UI message's, Markdown. */
export interface TextPart {
  /** Tells the part kinds apart. */
  type: 'text';
  /** The text so far. */
  text: string;
  /** Still streaming. */
  streaming: boolean;
  /** The AG-UI message it comes from. */
  messageId: string;
}

/** The model's reasoning: one AG-UI `reasoning` message's text. */
export interface ReasoningPart {
  /** Tells the part kinds apart. */
  type: 'reasoning';
  /** The reasoning so far. */
  text: string;
  /** Still streaming. */
  streaming: boolean;
  /** The AG-UI message it comes from. */
  messageId: string;
}

/** A file a message carries (an AG-UI `image` or `document` content part given by URL). */
export interface FilePart {
  /** Tells the part kinds apart. */
  type: 'file';
  /** The AG-UI content part it comes from: an `image` (drawn inline) or a `document` (a link). */
  kind: 'image' | 'document';
  /** An http(s) URL or a path on the API (the server answers paths); other schemes are dropped. */
  url: string;
  /** `''` when the part named none. */
  mimeType: string;
  /** The name it was uploaded under, else the URL's last segment. */
  name: string;
  /** Bytes, when the part says. */
  size: number | null;
  /** The AG-UI message that carries the file. */
  messageId: string;
}

/** A tool call with its arguments, where it stands and its result. */
export interface ToolPart {
  /** Tells the part kinds apart. */
  type: 'tool';
  /** The call's id (AG-UI `toolCallId`): what its result and an interrupt about it name. */
  toolCallId: string;
  /** `''` for a result whose call is not in view (on an older history page). */
  toolName: string;
  /** The raw JSON arguments so far. */
  arguments: string;
  /** The arguments still stream. */
  streaming: boolean;
  /** Where the call stands, from its result, the reply's end and its interrupt. */
  status: ToolCallStatus;
  /** Null until the tool answered. */
  result: ToolResult | null;
  /** The interrupt asked about this call (an approval, a browser tool), if any. */
  interrupt: ChatInterrupt | null;
  /** The assistant message holding the call (the tool message's, when the call is not in view). */
  messageId: string;
}

/** An interrupt that concerns no tool call of the turn: a question, an agent's own reason. */
export interface InterruptPart {
  /** Tells the part kinds apart. */
  type: 'interrupt';
  /** The interrupt: answer it with the chat's `resolve` or `cancel`. */
  interrupt: ChatInterrupt;
}

/** One part of a turn, in the order it is drawn. */
export type TurnPart = TextPart | ReasoningPart | FilePart | ToolPart | InterruptPart;

/** One turn of a conversation: a prompt, or the whole answer to one. */
export interface ChatTurn {
  /**
   * Stable across versions of the turn (its first message's first sibling), unique in the
   * list: the React key, so switching versions keeps the row (and the focus on ‹ ›).
   */
  key: string;
  /** `user`: a prompt; `assistant`: an answer. */
  role: 'user' | 'assistant';
  /**
   * The turn's first message (the one its versions are of, when another is): what
   * `regenerate`, `edit` and `switchBranch` take. Null for an answer made only of interrupts
   * (the run that asked wrote no message in view).
   */
  messageId: string | null;
  /** What the turn draws, in order: text, reasoning, files, tool calls, interrupts. */
  parts: readonly TurnPart[];
  /** The AG-UI messages it is made of, oldest first (system, developer and activity ones included). */
  messages: readonly ChatMessage[];
  /** The reply on its way is this turn's (a part streams, a tool runs, the text has not started). */
  streaming: boolean;
  /** How the answer ended when it was cut short. */
  ended: MessageEnd | null;
  /** The versions of the turn (‹ index + 1 / count ›), when it has siblings. */
  branch: BranchInfo | null;
  /** A prompt not yet accepted by the server (`sending`, or `queued` offline or behind a reply). */
  pending: 'sending' | 'queued' | null;
}

/** What `chatTurns` and `useChatTurns` read: the chat controller's fields of the same names. */
export interface ChatTurnsInput {
  /** The chat's messages (`chat.messages`). */
  messages: readonly ChatMessage[];
  /** The chat's interrupts (`chat.interrupts`). @default [] */
  interrupts?: readonly ChatInterrupt[];
  /** A reply is on its way (`chat.isStreaming`): the last answer turn is streaming. @default false */
  isStreaming?: boolean;
}

/** Roles that draw nothing: they stay in `messages`, never in `parts`. */
const HIDDEN_ROLES = new Set(['system', 'developer', 'activity']);

/**
 * The turns of a conversation. Given the turns it returned last time (`previous`), a turn
 * whose messages, interrupts and streaming are the same objects is returned as the same
 * object: a settled turn keeps its identity while another streams, so a memoized row does
 * not re-render.
 */
export function chatTurns(input: ChatTurnsInput, previous?: readonly ChatTurn[]): ChatTurn[] {
  const { messages, interrupts = [], isStreaming = false } = input;
  const groups = groupTurns(messages);
  const placed = placeInterrupts(groups, interrupts);
  const before = new Map<string, ChatTurn>();
  for (const turn of previous ?? []) before.set(turn.key, turn);
  const keys = new Set<string>();
  return groups.map((group, index) => {
    const own = placed[index]!;
    const first = group.messages[0];
    const base = first ? (first.branch?.siblingIds[0] ?? first.id) : own[0]!.runId;
    // Ids are data and may repeat: a key an earlier turn has gets its position too.
    const key = keys.has(base) ? `${base}\n${index}` : base;
    keys.add(key);
    const streaming =
      group.messages.some((m) => m.streaming === true) ||
      (isStreaming && group.role === 'assistant' && index === groups.length - 1);
    const old = before.get(key);
    if (
      old &&
      old.streaming === streaming &&
      sameItems(old.messages, group.messages) &&
      sameItems(interruptsOf(old), own)
    ) {
      return old;
    }
    return buildTurn(key, group, own, streaming);
  });
}

interface Group {
  role: 'user' | 'assistant';
  messages: ChatMessage[];
}

/** Each prompt alone; everything between two prompts one answer. A group of hidden roles only is none. */
function groupTurns(messages: readonly ChatMessage[]): Group[] {
  const groups: Group[] = [];
  let answer: ChatMessage[] = [];
  const close = () => {
    if (answer.some((m) => !HIDDEN_ROLES.has(m.role))) {
      groups.push({ role: 'assistant', messages: answer });
    }
    answer = [];
  };
  for (const m of messages) {
    if (m.role === 'user') {
      close();
      groups.push({ role: 'user', messages: [m] });
    } else {
      answer.push(m);
    }
  }
  close();
  return groups;
}

/**
 * The interrupts of each group: one about a tool call goes with the call; another after
 * the message it is anchored to; one whose anchor is a prompt or not in view goes to the
 * last answer (a new one when the conversation ends with a prompt).
 */
function placeInterrupts(groups: Group[], interrupts: readonly ChatInterrupt[]): ChatInterrupt[][] {
  const groupOf = new Map<string, number>();
  const callGroup = new Map<string, number>();
  groups.forEach((group, index) => {
    if (group.role === 'user') return;
    for (const m of group.messages) {
      if (!groupOf.has(m.id)) groupOf.set(m.id, index);
      for (const call of m.toolCalls ?? [])
        if (!callGroup.has(call.id)) callGroup.set(call.id, index);
    }
  });
  const placed: ChatInterrupt[][] = groups.map(() => []);
  const rest: ChatInterrupt[] = [];
  for (const i of interrupts) {
    const index =
      (i.toolCallId !== undefined ? callGroup.get(i.toolCallId) : undefined) ??
      (i.anchor !== null ? groupOf.get(i.anchor) : undefined);
    if (index === undefined) rest.push(i);
    else placed[index]!.push(i);
  }
  if (rest.length > 0) {
    const last = groups.length - 1;
    if (last >= 0 && groups[last]!.role === 'assistant') {
      placed[last]!.push(...rest);
    } else {
      // The asking run wrote no answer in view: the interrupts make one of their own.
      groups.push({ role: 'assistant', messages: [] });
      placed.push(rest);
    }
  }
  return placed;
}

const interruptsOf = (turn: ChatTurn) =>
  turn.parts.flatMap((p) =>
    p.type === 'interrupt' ? [p.interrupt] : p.type === 'tool' && p.interrupt ? [p.interrupt] : [],
  );

function buildTurn(
  key: string,
  group: Group,
  interrupts: readonly ChatInterrupt[],
  streaming: boolean,
): ChatTurn {
  const parts: TurnPart[] = [];
  const results = new Map<string, ChatMessage>();
  const calls = new Set<string>();
  for (const m of group.messages) {
    if (m.role === 'tool') results.set(m.toolCallId, m);
    else for (const call of m.toolCalls ?? []) calls.add(call.id);
  }
  const byCall = new Map<string, ChatInterrupt>();
  const after = new Map<string, ChatInterrupt[]>();
  const unplaced: ChatInterrupt[] = [];
  for (const i of interrupts) {
    if (i.toolCallId !== undefined && calls.has(i.toolCallId) && !byCall.has(i.toolCallId)) {
      byCall.set(i.toolCallId, i);
    } else if (i.anchor !== null && group.messages.some((m) => m.id === i.anchor)) {
      after.set(i.anchor, [...(after.get(i.anchor) ?? []), i]);
    } else {
      unplaced.push(i);
    }
  }
  for (const m of group.messages) {
    if (HIDDEN_ROLES.has(m.role)) continue;
    if (m.role === 'tool') {
      // Its call is in the turn: drawn there. Else (an older page) a part of its own.
      if (!calls.has(m.toolCallId)) parts.push(orphanResult(m));
    } else {
      const text = messageText(m);
      if (text !== '') {
        parts.push({
          type: m.role === 'reasoning' ? 'reasoning' : 'text',
          text,
          streaming: m.streaming === true,
          messageId: m.id,
        });
      }
      parts.push(...messageFiles(m));
      for (const call of m.toolCalls ?? []) {
        const result = results.get(call.id);
        const interrupt = byCall.get(call.id) ?? null;
        parts.push({
          type: 'tool',
          toolCallId: call.id,
          toolName: call.function.name,
          arguments: call.function.arguments,
          streaming: call.streaming === true,
          status: toolCallStatus(result, m.ended, interrupt),
          result: result ? toolResult(result) : null,
          interrupt,
          messageId: m.id,
        });
      }
    }
    for (const i of after.get(m.id) ?? []) parts.push({ type: 'interrupt', interrupt: i });
    after.delete(m.id);
  }
  for (const i of unplaced) parts.push({ type: 'interrupt', interrupt: i });
  const first = group.messages[0];
  const versioned = group.messages.find((m) => m.branch && m.branch.count > 1) ?? first;
  return {
    key,
    role: group.role,
    messageId: versioned?.id ?? null,
    parts,
    messages: group.messages,
    streaming,
    ended: group.messages.findLast((m) => m.ended)?.ended ?? null,
    branch: versioned?.branch ?? null,
    pending: first?.pending ?? null,
  };
}

/** The status of a call from its interrupt (approval), its result and how its message ended. */
export function toolCallStatus(
  result: ChatMessage | undefined,
  ended: MessageEnd | undefined,
  interrupt?: ChatInterrupt | null,
): ToolCallStatus {
  if (interrupt) {
    const answer = interrupt.answer;
    if (interrupt.status === 'cancelled' || answer?.status === 'cancelled') return 'cancelled';
    if (interrupt.reason === 'tool_approval') {
      if (interrupt.status === 'open' && interrupt.pending === null) return 'awaiting_approval';
      // Answered here (sent or waiting to be), or elsewhere with the answer shared: anything
      // but an approval is a denial. Answered elsewhere, the answer unknown here: its result
      // says the rest.
      const approved = (answer?.payload as { approved?: unknown } | undefined)?.approved;
      if (answer !== null && approved !== true) return 'denied';
    }
  }
  if (result) return resultError(result) !== null || result.ended === 'error' ? 'failed' : 'done';
  if (ended === 'error') return 'failed';
  if (ended === 'stopped') return 'cancelled';
  return 'running';
}

const resultError = (m: ChatMessage): string | null =>
  'error' in m && typeof m.error === 'string' ? m.error : null;

function toolResult(m: ChatMessage): ToolResult {
  return { messageId: m.id, content: messageText(m), error: resultError(m) };
}

/** A tool message whose call is not in view (an older page): its result alone. */
function orphanResult(m: ChatMessage & { role: 'tool' }): ToolPart {
  const result = toolResult(m);
  return {
    type: 'tool',
    toolCallId: m.toolCallId,
    toolName: '',
    arguments: '',
    streaming: false,
    status: toolCallStatus(m, undefined),
    result,
    interrupt: null,
    messageId: m.id,
  };
}

/** Only http(s) URLs and relative ones (the API's paths): `javascript:`, `data:`… are dropped. */
function fileUrl(url: string): string | null {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url);
  return scheme === null || /^https?$/i.test(scheme[1]!) ? url : null;
}

/**
 * The image and document parts (by URL) of a message's content, as its turn's file parts
 * show them; [] for plain text. For a UI that draws `messages` rather than turns.
 */
export function messageFiles(m: Pick<ChatMessage, 'id' | 'content'>): FilePart[] {
  if (!Array.isArray(m.content)) return [];
  const files: FilePart[] = [];
  for (const raw of m.content as unknown[]) {
    const p = raw as {
      type?: unknown;
      source?: { type?: unknown; value?: unknown; mimeType?: unknown };
      metadata?: { name?: unknown; size?: unknown };
    } | null;
    if (!p || (p.type !== 'image' && p.type !== 'document')) continue;
    if (p.source?.type !== 'url' || typeof p.source.value !== 'string') continue;
    const url = fileUrl(p.source.value);
    if (url === null || url === '') continue;
    const size = p.metadata?.size;
    files.push({
      type: 'file',
      kind: p.type,
      url,
      mimeType: typeof p.source.mimeType === 'string' ? p.source.mimeType : '',
      name:
        typeof p.metadata?.name === 'string'
          ? p.metadata.name
          : (url.split(/[?#]/)[0]!.split('/').pop() ?? ''),
      size: typeof size === 'number' && Number.isSafeInteger(size) && size >= 0 ? size : null,
      messageId: m.id,
    });
  }
  return files;
}

/** Two lists with the same items (by identity) in the same order. */
function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
