import type { Message, RunAgentInput } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';
import { TREE_PAGE, TREE_PAGES } from '../defaults.js';
import { withoutRunMarks } from '../stores/stored-messages.js';
import type { EventStore, RunRecord } from '../stores/types.js';
import { type BranchInfo, MessageTree, type TreeMessage } from './tree.js';

export const MAX_TREE_MESSAGES = TREE_PAGE * TREE_PAGES;

/** The thread's whole history as a tree (bounded by the per-thread message limit). */
export async function loadTree(store: EventStore, threadId: string): Promise<MessageTree> {
  const pages: Message[][] = [];
  let before: number | null = null;
  for (let i = 0; i < TREE_PAGES; i++) {
    const page = await store.listMessages(threadId, before, TREE_PAGE);
    pages.unshift(page.messages);
    if (page.nextBefore === null) break;
    before = page.nextBefore;
  }
  return new MessageTree(pages.flat());
}

/**
 * The leaf of the current branch: the newest run's own leaf. A running run has stored only
 * its prompt, so its branch ends at the message it answers; a finished one continues
 * through its answer (the newest descendant). Runs stored before branches existed name no
 * parent: then the newest message is the leaf, as in a linear history.
 */
export async function currentLeaf(
  store: EventStore,
  tree: MessageTree,
  threadId: string,
): Promise<string | null> {
  const [newest] = await store.listRuns(threadId, 1);
  if (!newest || newest.replyTo === undefined) return tree.newestId();
  const start = newest.replyTo;
  if (start !== null && !tree.has(start)) return tree.newestId();
  if (newest.status === 'running') return start;
  return tree.newestDescendant(start);
}

/** What a new run hangs under, and what its agent is told before the request's messages. */
export interface BranchPlan {
  /** Parent of the run's first new prompt message. */
  parentId: string | null;
  /** The message the run's answer follows: its last new prompt message, else `parentId`. */
  replyTo: string | null;
  /** The request's user/system messages with their parents, to store. */
  prompt: TreeMessage[];
  /** The branch up to `parentId` (at most `historyLimit` of its newest messages). */
  history: Message[];
  /** The place the run's answer takes among the answers to `replyTo` (0 = the first). */
  answerIndex: number;
}

/**
 * Places a run in the tree: under `parentMessageId` (`null` = a new root, absent = the
 * current branch's leaf). An unknown parent is `404 message_not_found`. A request that
 * repeats a stored message carries the conversation itself: it gets no stored history
 * (as before branches), and its repeated messages keep their place.
 */
export async function planBranch(
  store: EventStore,
  input: RunAgentInput,
  parentMessageId: string | null | undefined,
  historyLimit: number,
  maxMessages = Number.POSITIVE_INFINITY,
): Promise<BranchPlan> {
  const tree = await loadTree(store, input.threadId);
  // A full thread takes no more runs, even one that adds no prompt: its answer would.
  if (tree.size >= maxMessages) {
    throw new ResumableError(
      'bad_request',
      `thread ${input.threadId} has ${maxMessages} messages in its history, the limit; start a new thread`,
    );
  }
  let parentId: string | null;
  if (parentMessageId === undefined) {
    parentId = await currentLeaf(store, tree, input.threadId);
  } else {
    if (parentMessageId !== null && !tree.has(parentMessageId)) {
      throw new ResumableError(
        'message_not_found',
        `thread ${input.threadId} has no message ${parentMessageId}`,
      );
    }
    parentId = parentMessageId;
  }
  const prompt = input.messages
    .filter((m) => m.role !== 'assistant' && m.role !== 'tool')
    .map(withoutRunMarks);
  const placed = chain(tree, prompt, parentId);
  const fresh = placed.filter((m) => !tree.has(m.id));
  // One request may not carry a thread past its limit (a tree past it would be cut).
  if (tree.size + fresh.length > maxMessages) {
    throw new ResumableError(
      'bad_request',
      `thread ${input.threadId} would hold ${tree.size + fresh.length} messages in its history, over the limit of ${maxMessages}; start a new thread`,
    );
  }
  const repeats = input.messages.some((m) => tree.has(m.id));
  const history =
    repeats || historyLimit <= 0
      ? []
      : tree
          .branch(parentId)
          .slice(-historyLimit)
          // AG-UI messages for the agent: no tree position, no end mark.
          .map(({ parentId: _parent, ended: _ended, ...message }) => message as Message);
  const replyTo = fresh.length > 0 ? fresh[fresh.length - 1]!.id : parentId;
  return {
    parentId,
    replyTo,
    answerIndex: fresh.length > 0 ? 0 : tree.childCount(replyTo),
    prompt: placed,
    history,
  };
}

/**
 * Gives each message its parent: a stored message keeps its own; the first new one hangs
 * under `parentId`, each next new one under the new one before it.
 */
export function chain(
  tree: MessageTree,
  messages: readonly Message[],
  parentId: string | null,
): TreeMessage[] {
  let previous = parentId;
  return messages.map((message) => {
    if (tree.has(message.id)) return { ...message, parentId: tree.parentOf(message.id) };
    const placed = { ...message, parentId: previous };
    previous = message.id;
    return placed;
  });
}

/**
 * Stores a run's answer (the messages of its final snapshot) under the message it replies
 * to. A run from before branches (no `replyTo`) continues the newest message.
 */
export async function putAnswer(
  store: EventStore,
  record: RunRecord,
  messages: readonly Message[],
): Promise<void> {
  if (messages.length === 0) return;
  const tree = await loadTree(store, record.threadId);
  const parentId = record.replyTo === undefined ? tree.newestId() : record.replyTo;
  await store.putMessages(record.threadId, record.runId, chain(tree, messages, parentId));
}

export type BranchMessage = TreeMessage & { branch?: BranchInfo };

export interface BranchPage {
  /** Oldest to newest; a message with siblings carries `branch`. */
  messages: BranchMessage[];
  /** Position (1 = the root) of this page's first message when older ones exist, else null. */
  nextBefore: number | null;
}

/**
 * A page of one branch: the current one, or with `through` the branch through that
 * message and then its newest descendants. `before` is a position on that branch
 * (positions never change: a message's ancestors are fixed).
 */
export async function pageBranch(
  store: EventStore,
  threadId: string,
  options: { before: number | null; limit: number; through: string | null },
): Promise<BranchPage> {
  const tree = await loadTree(store, threadId);
  let leaf: string | null;
  if (options.through !== null) {
    if (!tree.has(options.through)) {
      throw new ResumableError(
        'message_not_found',
        `thread ${threadId} has no message ${options.through}`,
      );
    }
    leaf = tree.newestDescendant(options.through);
  } else {
    leaf = await currentLeaf(store, tree, threadId);
  }
  const branch = tree.branch(leaf);
  const end = options.before === null ? branch.length : Math.min(options.before - 1, branch.length);
  const start = Math.max(0, end - options.limit);
  const messages = branch.slice(start, end).map((message) => {
    const info = tree.branchInfo(message.id);
    return info ? { ...message, branch: info } : message;
  });
  return { messages, nextBefore: start > 0 ? start + 1 : null };
}
