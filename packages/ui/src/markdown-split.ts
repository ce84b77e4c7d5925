import type { Nodes, Root } from 'mdast';
import { tooHostileToParse } from './markdown-guard.js';
import { parseMarkdown } from './mdast-react.js';

/** A text split into its top-level blocks (together, the text): `splitBlocks`. */
export interface Blocks {
  text: string;
  blocks: string[];
  /** The last block is too hostile to parse (markdown-guard.ts): shown as plain text. */
  plainLast: boolean;
  /** The last block parsed (its nodes of the tree the split was read from), when it was. */
  lastTree?: Root;
  /** Where in `text` the offsets of `lastTree` count from. */
  lastTreeFrom?: number;
  /** The last block completed for display (markdown-complete.ts), when the appends said it. */
  shown?: string;
}

/**
 * What grows the last block's tree without a parse, and parses it faster: markdown-append.ts,
 * a chunk of its own (markdown.tsx's `appendChunk`).
 */
export interface Grow {
  /** The split of `text`, which extends `before`, with no parse; null when it needs one. */
  extend(before: Blocks, text: string): Blocks | null;
  /** The last block's first line, whatever it becomes, cannot change the block before it. */
  closedBefore(blocks: string[]): boolean;
  /** The parse of the blocks being written. */
  parseTail(text: string): Root;
  /** The parser reads `next`'s first line under `block`, the block before it: parse both. */
  readUnder(block: string, next: string): boolean;
}

/**
 * Top-level blocks, by the positions of the root's children in the one parser's syntax
 * tree, each from the start of its line; the blank lines after a block stay with it. Given
 * the split of a text this one extends (the reply so far), its final blocks are kept and
 * only the rest is parsed, so a streamed reply costs its last blocks per token, not the
 * whole reply (the memoized blocks of streamdown and assistant-ui). CommonMark reads line by
 * line: a block is final once the first line of the block after it is whole — every block
 * but the last two, and the one before the last once the last holds a line break (two if it
 * holds a `|`: a table's second line, its delimiter row, decides whether its first line
 * interrupts the paragraph before it; `|---|---|---|` under two cells does not). Until then
 * the last block's first line may change what it closes: `3` ends a list, `3.` continues it.
 * A last block shown as plain text was the rest of the text before: the blocks before it are
 * kept as they were. Reference-style link or footnote definitions (any `definition` node of the
 * tail's tree, in a quote or a list item too) need the whole document, so such text stays
 * one block. Given `grow`, a block the parser reads under the one before it (a list or a
 * quote that interrupts a paragraph, any block after indented code: its `readUnder`) is
 * parsed with that one. Given `grow` (markdown-append.ts), words appended after words, rows appended to a
 * table and lines to a code fence extend the last block's tree with no parse of the block,
 * and a paragraph after a blank line closes the block before it at once.
 */
export function splitBlocks(
  text: string,
  before?: Blocks | null,
  outsideCode?: (text: string) => string,
  grow?: Grow | null,
): Blocks {
  // Words appended after words lengthen the last text, rows a table, lines a code fence: no
  // parse of the block (markdown-append.ts).
  const grown = before && grow?.extend(before, text);
  if (grown) return grown;
  const last = before?.blocks[before.blocks.length - 1] ?? '';
  const kept =
    before && text.startsWith(before.text)
      ? before.blocks.slice(
          0,
          before.plainLast || lineDecided(last) || grow?.closedBefore(before.blocks) ? -1 : -2,
        )
      : [];
  let tail = text.slice(kept.reduce((n, block) => n + block.length, 0));
  const blocks = (rest: string[], plainLast = false, lastTree?: Root): Blocks => ({
    text,
    blocks: [...kept, ...rest],
    plainLast,
    ...(lastTree ? { lastTree, lastTreeFrom: text.length - tail.length } : {}),
  });
  if (tail === '') return blocks([]);
  if (tooHostileToParse(tail, outsideCode)) return blocks([tail], true);
  // A block read under the one before it reads otherwise alone: the tail starts before it.
  for (let previous = kept.at(-1); previous !== undefined && grow?.readUnder(previous, tail); ) {
    kept.pop();
    tail = previous + tail;
    previous = kept.at(-1);
  }
  const root = (grow?.parseTail ?? parseMarkdown)(tail);
  // Kept blocks were parsed in a tail before: a definition is found where it arrives.
  if (defines(root)) {
    return kept.length > 0
      ? splitBlocks(text, null, outsideCode, grow)
      : blocks([tail], false, root);
  }
  // Where each child's first line starts (the first block from the start of the text), and
  // the first child of the last block.
  const starts = [0];
  let lastFrom = 0;
  root.children.forEach((node, i) => {
    if (i === 0) return;
    const line = tail.lastIndexOf('\n', (node.position?.start.offset ?? 0) - 1) + 1;
    if (line > starts[starts.length - 1]!) {
      starts.push(line);
      lastFrom = i;
    }
  });
  return blocks(
    starts.map((start, i) => tail.slice(start, starts[i + 1])),
    false,
    { type: 'root', children: root.children.slice(lastFrom) },
  );
}

/** The first line of a last block is whole, and (a table's header) so is its second. */
const lineDecided = (last: string): boolean =>
  last.includes('\n') && (!last.includes('|') || /\n.*\n/s.test(last));

/** A reference or footnote definition anywhere in the tree (in a quote, a list item…). */
const defines = (node: Nodes): boolean =>
  node.type === 'definition' ||
  node.type === 'footnoteDefinition' ||
  // Only block containers hold them: phrasing is not walked.
  ((node.type === 'root' ||
    node.type === 'blockquote' ||
    node.type === 'list' ||
    node.type === 'listItem') &&
    (node.children as Nodes[]).some(defines));
