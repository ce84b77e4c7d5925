import type { Message } from '@resumable/protocol';

/** Where a message sits among the answers (or prompts) to the same parent. */
export interface BranchInfo {
  /** 0-based position among its siblings, in creation order. */
  index: number;
  count: number;
  /** Every sibling's id (this message's too), in creation order. */
  siblingIds: string[];
}

/** A stored message: the AG-UI message and the message it follows (null for a root). */
/** A stored message: its parent, and how it ended when its run stopped or failed mid-way. */
export type TreeMessage = Message & { parentId: string | null; ended?: 'stopped' | 'error' };

interface Node {
  message: TreeMessage;
  /** Creation order (position in the thread's insertion-ordered history). */
  order: number;
}

/**
 * A thread's history as a tree, built from its stored messages in insertion order. The
 * parent lives in each stored message (`parentId`); a message stored before branches
 * existed has none and follows the message stored before it, so an old linear history
 * reads as one branch. Ids are data: kept in Maps, never as object keys.
 */
export class MessageTree {
  private readonly nodes = new Map<string, Node>();
  /** Children of each parent in creation order; `null` holds the roots. */
  private readonly children = new Map<string | null, string[]>();
  private newest: string | null = null;

  constructor(messages: readonly Message[]) {
    let previous: string | null = null;
    messages.forEach((stored, order) => {
      const given = (stored as { parentId?: unknown }).parentId;
      const parentId =
        typeof given === 'string' && this.nodes.has(given)
          ? given
          : given === null
            ? null
            : previous;
      this.nodes.set(stored.id, { message: { ...stored, parentId } as TreeMessage, order });
      const siblings = this.children.get(parentId);
      if (siblings) siblings.push(stored.id);
      else this.children.set(parentId, [stored.id]);
      previous = stored.id;
    });
    this.newest = previous;
  }

  get size(): number {
    return this.nodes.size;
  }

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  parentOf(id: string): string | null {
    return this.nodes.get(id)?.message.parentId ?? null;
  }

  /** The most recently stored message, or null for an empty history. */
  newestId(): string | null {
    return this.newest;
  }

  /** From `id` down through the newest child at each step; `null` starts at the newest root. */
  newestDescendant(id: string | null): string | null {
    let at = id ?? this.newestChild(null);
    for (let guard = 0; at !== null && guard <= this.nodes.size; guard++) {
      const next = this.newestChild(at);
      if (next === null) return at;
      at = next;
    }
    return at;
  }

  /** The messages from the root down to `leaf` (empty for null). */
  branch(leaf: string | null): TreeMessage[] {
    const path: TreeMessage[] = [];
    // Bounded by the node count: parents always precede children, so there is no cycle.
    for (let at = leaf; at !== null && path.length <= this.nodes.size; ) {
      const node = this.nodes.get(at);
      if (!node) break;
      path.push(node.message);
      at = node.message.parentId;
    }
    return path.reverse();
  }

  /** The message's place among its siblings, or null when it has none. */
  branchInfo(id: string): BranchInfo | null {
    const node = this.nodes.get(id);
    if (!node) return null;
    const siblingIds = this.children.get(node.message.parentId) ?? [];
    if (siblingIds.length < 2) return null;
    return { index: siblingIds.indexOf(id), count: siblingIds.length, siblingIds: [...siblingIds] };
  }

  /** How many messages follow `id` (roots for null). */
  childCount(id: string | null): number {
    return this.children.get(id)?.length ?? 0;
  }

  private newestChild(id: string | null): string | null {
    const list = this.children.get(id);
    return list && list.length > 0 ? list[list.length - 1]! : null;
  }
}
