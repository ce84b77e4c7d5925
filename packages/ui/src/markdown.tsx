import type { Nodes, Root } from 'mdast';
import { memo, useMemo, useRef, useState } from 'react';
import { INCOMPLETE_IMAGE_PLACEHOLDER } from 'remend';
import { CodeBlock, type CodeRenderer } from './code-block.js';
import { cx } from './cx.js';
import { type ChatLabels, useLabels } from './labels.js';
import { chunk, useChunk } from './lazy-chunk.js';
import type { Blocks } from './markdown-append.js';
import { completeForDisplay } from './markdown-complete.js';
import { codeChunk, tooHostileToParse } from './markdown-guard.js';
import { type MdRenderers, parseMarkdown, renderRoot } from './mdast-react.js';

/**
 * Decides whether a remote image may load. `true` allows every http(s) image. Pass a stable
 * function (module-level or memoized): rows re-render when it changes.
 */
export type ImagePolicy = boolean | ((url: string) => boolean);

export type { CodeRenderer } from './code-block.js';

/**
 * Props of {@link Markdown}: the text to render and how far to trust it. Every option has a
 * safe default; only `text` is required.
 */
export interface MarkdownProps {
  /** The Markdown source (the message's text so far). */
  text: string;
  /**
   * The text is still arriving: the last block's unterminated syntax (`**bo`, an open code
   * fence, `[link](ht`) is completed for display so nothing flickers between raw and styled.
   * @default false
   */
  streaming?: boolean;
  /**
   * Remote images are not fetched unless allowed: a reply must not make the browser call
   * URLs the model chose (tracking pixels, exfiltration by query string).
   * @default false
   */
  allowRemoteImages?: ImagePolicy;
  /**
   * Renders the body of each fenced code block instead of the built-in highlighter (the
   * block's header, with its language and copy button, stays).
   * @default undefined (the built-in highlighter, loaded on first use)
   */
  renderCode?: CodeRenderer | undefined;
  /**
   * Overrides of the words it shows: `copyCode` and `copied` (a code block's copy button),
   * `codeBlock` (a code block's accessible name), `table` (a table's scroll box) and
   * `imageBlocked` (the stand-in for a remote image not allowed).
   * @default DEFAULT_LABELS
   */
  labels?: Partial<ChatLabels>;
  /** Class names added to the wrapping `<div>` (which always has `rc-markdown`). */
  className?: string;
}

/**
 * Streaming-safe, XSS-safe Markdown. Raw HTML is shown as text (never parsed), links keep only
 * http(s)/mailto and relative URLs (others render as plain text), images are off by default.
 * The text is split into top-level blocks so a streaming reply re-renders only its last block.
 */
export function Markdown({
  text,
  // (Both default to false: left undefined, which reads the same.)
  streaming,
  allowRemoteImages,
  renderCode,
  labels: labelsProp,
  className,
}: MarkdownProps) {
  const labels = useLabels(labelsProp);
  // The split of the text before: while the text only grows, its final blocks are kept.
  const before = useRef<Blocks | null>(null);
  // Each final block's drawn text, by position, while its block is the same string: a fresh
  // trimmed copy per render made every block's memo compare its text character by character.
  const drawn = useRef<[block: string, source: string][]>([]);
  // The guard's finer check, fetched once text has needed it (markdown-guard.ts).
  const [packed, setPacked] = useState(false);
  const code = useChunk(codeChunk, packed);
  // Appending without a parse, fetched once a reply streams (until then each token parses).
  const grow = useChunk(appendChunk, streaming === true);
  const { blocks, plainLast, lastTree } = useMemo(
    () => (before.current = splitBlocks(text, before.current, code?.outsideCode, grow)),
    [text, code, grow],
  );
  if (plainLast && !packed) setPacked(true);
  const renderers = useMemo(
    () => makeRenderers(labels, allowRemoteImages, renderCode),
    [labels, allowRemoteImages, renderCode],
  );
  const last = blocks.length - 1;
  return (
    <div className={cx('rc-markdown', className)}>
      {blocks.map((block, i) => {
        // Too hostile to parse (markdown-guard.ts): the text as it is.
        if (plainLast && i === last) return block;
        // The block being written is completed for display (markdown-complete.ts). Blocks
        // are drawn without their trailing blank lines (they draw nothing) while the reply
        // streams, so a block does not render again when the next one starts.
        if (i !== last && drawn.current[i]?.[0] !== block)
          drawn.current[i] = [block, block.trimEnd()];
        const source =
          i !== last
            ? drawn.current[i]![1]
            : streaming
              ? completeForDisplay(block).trimEnd()
              : block;
        return (
          <MarkdownBlock
            // Blocks only ever grow at the end, so the index is a stable identity.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            key={i}
            source={source}
            // The split has just parsed the last block: its tree is this source's, unless
            // completing it changed more than trailing blanks.
            tree={
              i === last && (source === block || source === block.trimEnd()) ? lastTree : undefined
            }
            renderers={renderers}
          />
        );
      })}
    </div>
  );
}

/**
 * One block, rendered again only when its text changes: while a reply streams, only the last
 * one does. `tree`, when given, is `source` already parsed.
 */
const MarkdownBlock = memo(
  function MarkdownBlock({
    source,
    tree,
    renderers,
  }: {
    source: string;
    tree: Root | undefined;
    renderers: MdRenderers;
  }) {
    return <>{renderRoot(tree ?? parseMarkdown(source), renderers)}</>;
  },
  // The tree is the source's: it never changes on its own.
  (a, b) => a.source === b.source && a.renderers === b.renderers,
);

export type { Blocks };

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
 * one block. Given `grow` (markdown-append.ts), words appended after words, rows appended
 * to a table and lines to a code fence extend the last block's tree with no parse of the
 * block, and a paragraph after a blank line closes the block before it at once.
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
  const tail = text.slice(kept.reduce((n, block) => n + block.length, 0));
  const tailFrom = text.length - tail.length;
  const blocks = (rest: string[], plainLast = false, lastTree?: Root): Blocks => ({
    text,
    blocks: [...kept, ...rest],
    plainLast,
    ...(lastTree ? { lastTree, lastTreeFrom: tailFrom } : {}),
  });
  if (tail === '') return blocks([]);
  if (tooHostileToParse(tail, outsideCode)) return blocks([tail], true);
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

/** What grows the last block's tree without a parse, and parses it faster (markdown-append.ts). */
export type Grow = Pick<
  typeof import('./markdown-append.js'),
  'extend' | 'closedBefore' | 'parseTail'
>;

/** markdown-append.ts: its own chunk, fetched once a reply streams. */
export const appendChunk = chunk<Grow>(() => import('./markdown-append.js'));

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

export function makeRenderers(
  labels: Pick<ChatLabels, 'copyCode' | 'copied' | 'imageBlocked' | 'table' | 'codeBlock'>,
  images: ImagePolicy | undefined,
  renderCode: CodeRenderer | undefined,
): MdRenderers {
  return {
    link(url, title, children, key) {
      if (!url) {
        return (
          <span key={key} className="rc-link-inert">
            {children}
          </span>
        );
      }
      return (
        <a
          key={key}
          href={url}
          title={title ?? undefined}
          target="_blank"
          rel="noopener noreferrer nofollow"
        >
          {children}
        </a>
      );
    },
    image(url, alt, key) {
      if (url === INCOMPLETE_IMAGE_PLACEHOLDER) return null;
      const allowed =
        /^https?:\/\//i.test(url) && (typeof images === 'function' ? images(url) : images);
      if (!allowed) {
        return (
          <span key={key} className="rc-image-blocked">
            {labels.imageBlocked(alt)}
          </span>
        );
      }
      return <img key={key} src={url} alt={alt} loading="lazy" referrerPolicy="no-referrer" />;
    },
    table(table, key) {
      // A wide table scrolls in its own box, reachable by keyboard (a scrollable region
      // must be focusable) and named, rather than squeezing its words.
      return (
        <section
          key={key}
          className="rc-table-scroll"
          aria-label={labels.table}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
          tabIndex={0}
        >
          {table}
        </section>
      );
    },
    code(value, lang, key) {
      return (
        <CodeBlock key={key} code={value} language={lang} labels={labels} renderCode={renderCode} />
      );
    },
  };
}
