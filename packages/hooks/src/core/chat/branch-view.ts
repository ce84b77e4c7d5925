import type { BranchInfo, ChatMessage, ChatState, OutboxItem } from '../conversation/state.js';
import type { RunSessionState } from '../run/session-store.js';
import type { OptimisticMessages } from './optimistic.js';

/**
 * The transcript shows one branch of the thread's tree. Derived, never stored: from the
 * composed messages (history pages, settled runs, the current run, the outbox, in that
 * order), their parents, and the selection (`through`: a message whose branch is shown, or
 * null for the newest). Runs in the first-paint graph, so it stays small.
 */

export interface BranchSources {
  /** `composeMessages`' list: every known message once, oldest first. */
  all: readonly ChatMessage[];
  /** The server's page(s) of the selected branch (their `branch` is the server's count). */
  history: readonly ChatMessage[];
  /** True when older pages exist: the first history message's parent is not loaded. */
  hasOlder: boolean;
  /** The messages of the run being followed (the prompt it echoes included). */
  runIds: ReadonlySet<string>;
  /** The current run regenerates an answer: its first message hangs under `parentId`. */
  regenerated: { runId: string; parentId: string } | null;
  /** The current run's id and first message (to place a regenerated answer). */
  runId: string | null;
  runFirstId: string | null;
  outbox: readonly OutboxItem[];
  /** Show the branch through this message (pinned by `switchBranch`); null: the newest. */
  through: string | null;
}

/** What `POST /runs` adds for an outbox item that makes a branch. */
export function branchInput(item: OutboxItem): { messages?: []; parentMessageId?: string | null } {
  if (item.parentMessageId === undefined) return {};
  const parentMessageId = item.parentMessageId;
  return item.kind === 'regenerate' ? { messages: [], parentMessageId } : { parentMessageId };
}

/** The chat's `regenerated` once the run of `item` is started. */
export function regeneratedOf(
  item: OutboxItem,
  runId: string,
): { runId: string; parentId: string } | null {
  return item.kind === 'regenerate' && typeof item.parentMessageId === 'string'
    ? { runId, parentId: item.parentMessageId }
    : null;
}

/** A parent that is a message id, null (the root), or undefined (not known here). */
type Parent = string | null | undefined;

/** A `branch` from the wire, checked: anything else is ignored (hostile input is normal). */
export function validBranch(value: unknown): BranchInfo | null {
  const b = value as BranchInfo | null | undefined;
  if (typeof b !== 'object' || b === null || !Array.isArray(b.siblingIds)) return null;
  const ids = b.siblingIds;
  if (ids.length < 2 || ids.length > 10_000 || !ids.every((id) => typeof id === 'string')) {
    return null;
  }
  const { index, count } = b;
  return Number.isInteger(index) && index >= 0 && index < count && count === ids.length ? b : null;
}

/**
 * The messages of the branch shown, oldest first, each with the `branch` (‹ n / m ›) of
 * what is known here: the server's siblings plus the ones made on this page since.
 */
export function visibleBranch(sources: BranchSources, cache: BranchCache): ChatMessage[] {
  const { all, through } = sources;
  const inHistory = new Set(sources.history.map((m) => m.id));
  const parents = new Map<string, Parent>();
  const children = new Map<string | null, string[]>();
  const byId = new Map<string, ChatMessage>();
  // The processing leaf: where a message that names no parent attaches (the server's "after
  // the current leaf"). A regenerate waiting or just started has no message: its prompt is.
  let leaf: Parent = sources.hasOlder ? undefined : null;
  let previousId: string | null = null;
  const guessed = new Set<string>();
  const attach = (id: string, parent: Parent) => {
    parents.set(id, parent);
    if (parent === undefined) return;
    const list = children.get(parent);
    if (list) list.push(id);
    else children.set(parent, [id]);
  };
  const reparent = (id: string, parent: Parent) => {
    const old = parents.get(id);
    const list = old === undefined ? undefined : children.get(old);
    if (list) list.splice(list.indexOf(id), 1);
    attach(id, parent);
  };
  const place = (m: ChatMessage, parent: Parent) => {
    byId.set(m.id, m);
    attach(m.id, parent);
    leaf = m.id;
  };
  const outboxIds = new Set<string>();
  for (const item of sources.outbox) outboxIds.add(optimisticId(item));
  const allById = new Map(all.map((m) => [m.id, m]));
  for (const m of all) {
    if (outboxIds.has(m.id)) continue;
    if (byId.has(m.id)) {
      // The same message again (history, a settled run and a continuation that repeats a
      // tool call all name it): one node, its newest content, and the server's parent when
      // this copy names one and the first was placed by guess. Placed twice, it would make
      // a cycle and show twice.
      byId.set(m.id, m);
      const named = explicitParent(m);
      if (named !== undefined && guessed.delete(m.id)) reparent(m.id, named);
      leaf = m.id;
      previousId = m.id;
      continue;
    }
    const regen = sources.regenerated;
    let parent: Parent = explicitParent(m);
    if (parent === undefined) guessed.add(m.id);
    if (regen && regen.runId === sources.runId && m.id === sources.runFirstId) {
      parent = regen.parentId;
    } else if (parent === undefined) {
      // Pinned to an older branch, a message from elsewhere (a run started before the
      // switch) continues only what it followed in its own run.
      const sameRun =
        sources.runIds.has(m.id) && previousId !== null && sources.runIds.has(previousId);
      parent = through === null || inHistory.has(m.id) || sameRun ? leaf : undefined;
    }
    place(m, parent);
    previousId = m.id;
  }
  if (sources.regenerated && sources.regenerated.runId === sources.runId && !sources.runFirstId) {
    leaf = sources.regenerated.parentId;
  }
  for (const item of sources.outbox) {
    if (item.kind === 'regenerate') {
      leaf = item.parentMessageId ?? null;
      continue;
    }
    const m = allById.get(optimisticId(item));
    if (m) place(m, item.parentMessageId !== undefined ? item.parentMessageId : leaf);
  }
  if (through !== null && byId.has(through)) leaf = newestDescendant(through, children);
  const path: ChatMessage[] = [];
  // A guessed parent can still close a loop with the server's: the walk stops at a message
  // it has already shown, so no message shows twice.
  const shown = new Set<string>();
  for (let at: Parent = leaf; typeof at === 'string' && !shown.has(at); ) {
    const m = byId.get(at);
    if (!m) break;
    shown.add(at);
    path.push(m);
    at = parents.get(at);
  }
  path.reverse();
  const serverBranch = new Map<string, BranchInfo>();
  for (const m of sources.history) {
    const b = validBranch(m.branch);
    if (b) serverBranch.set(m.id, b);
  }
  return path.map((m) => cache.with(m, branchOf(m.id, parents.get(m.id), children, serverBranch)));
}

/** The id of the user message an outbox item shows (as `optimisticMessage` makes it). */
export function optimisticId(item: Pick<OutboxItem, 'runId' | 'messageId'>): string {
  return item.messageId ?? `user-${item.runId}`;
}

function explicitParent(m: ChatMessage): Parent {
  const p = (m as { parentId?: unknown }).parentId;
  return typeof p === 'string' || p === null ? p : undefined;
}

function newestDescendant(id: string, children: Map<string | null, string[]>): string {
  let at = id;
  for (let guard = 0; guard < 100_000; guard++) {
    const next = children.get(at);
    if (!next || next.length === 0) return at;
    at = next[next.length - 1]!;
  }
  return at;
}

/** The server's siblings (from any sibling it described), then those made here since. */
function branchOf(
  id: string,
  parent: Parent,
  children: Map<string | null, string[]>,
  serverBranch: Map<string, BranchInfo>,
): BranchInfo | null {
  const local = parent === undefined ? [id] : (children.get(parent) ?? [id]);
  let ids: string[] = [];
  for (const sibling of [id, ...local]) {
    const known = serverBranch.get(sibling);
    if (known) {
      ids = [...known.siblingIds];
      break;
    }
  }
  for (const sibling of local) if (!ids.includes(sibling)) ids.push(sibling);
  if (!ids.includes(id)) ids.push(id);
  if (ids.length < 2) return null;
  return { index: ids.indexOf(id), count: ids.length, siblingIds: ids };
}

/**
 * Keeps each message's identity while its `branch` does not change, so a memoized row does
 * not re-render when the transcript is derived again. Weakly held: bounded by the messages.
 */
export class BranchCache {
  private readonly made = new WeakMap<ChatMessage, ChatMessage>();

  with(m: ChatMessage, branch: BranchInfo | null): ChatMessage {
    // Unchanged only when what it carries is valid and the same (a bad one is dropped).
    const carried = m.branch === undefined ? null : validBranch(m.branch);
    const same =
      m.branch === undefined ? branch === null : carried !== null && sameBranch(carried, branch);
    if (same) return m;
    const prev = this.made.get(m);
    if (prev && sameBranch(prev.branch ?? null, branch)) return prev;
    const { branch: _server, ...rest } = m;
    const next = (branch ? { ...rest, branch } : rest) as ChatMessage;
    this.made.set(m, next);
    return next;
  }
}

function sameBranch(a: BranchInfo | null, b: BranchInfo | null): boolean {
  if (a === b) return true;
  if (!a || !b || a.index !== b.index || a.count !== b.count) return false;
  return a.siblingIds.every((id, i) => id === b.siblingIds[i]);
}

/** `visibleBranch` over a chat's state, derived again only when one of its inputs changed. */
export class BranchView {
  private readonly cache = new BranchCache();
  private lastParts: unknown[] = [];

  private all: readonly ChatMessage[] = [];

  /** The message is known here (on any branch). */
  has(id: string): boolean {
    return this.all.some((m) => m.id === id);
  }

  /** The branch shown, or null when nothing it depends on changed since the last call. */
  derive(
    optimistic: OptimisticMessages,
    chat: ChatState,
    run: Pick<RunSessionState, 'runId' | 'messages'>,
  ): ChatMessage[] | null {
    const composed = optimistic.compose(chat, run);
    if (composed !== null) this.all = composed;
    const all = this.all;
    const parts: unknown[] = [
      all,
      chat.history,
      chat.hasOlder,
      chat.outbox,
      chat.through,
      chat.regenerated,
    ];
    parts.push(chat.prompt, run.runId, run.messages);
    if (parts.every((part, i) => part === this.lastParts[i])) return null;
    this.lastParts = parts;
    const runIds = new Set(run.messages.map((m) => m.id));
    if (chat.prompt && chat.prompt.runId === run.runId) runIds.add(chat.prompt.message.id);
    return visibleBranch(
      {
        all,
        history: chat.history,
        hasOlder: chat.hasOlder,
        runIds,
        regenerated: chat.regenerated,
        runId: run.runId,
        runFirstId: run.messages[0]?.id ?? null,
        outbox: chat.outbox,
        through: chat.through,
      },
      this.cache,
    );
  }
}

/** The last message of the branch shown (a prompt sent now continues it). */
export function visibleLeaf(chat: Pick<ChatState, 'messages'>): string | null {
  return chat.messages.findLast((m) => !m.pending)?.id ?? null;
}

/** Viewing an older branch, a prompt continues it (not the thread's newest branch). */
export function pinnedParent(chat: ChatState): { parentMessageId?: string | null } {
  return chat.through === null ? {} : { parentMessageId: visibleLeaf(chat) };
}

/**
 * The run made a new branch (a regenerate, an edit, a prompt on an older branch): when it
 * ends, its page says how many siblings it has now (‹ n / m ›).
 */
export function forkedRun(
  chat: Pick<ChatState, 'prompt' | 'regenerated'>,
  runId: string | null,
): boolean {
  if (runId === null) return false;
  if (chat.regenerated?.runId === runId) return true;
  return chat.prompt?.runId === runId && chat.prompt.message.parentId !== undefined;
}
