import type { Root } from 'mdast';
import { memo, type ReactNode, useMemo, useRef, useState } from 'react';
import { INCOMPLETE_IMAGE_PLACEHOLDER } from 'remend';
import { CodeBlock, type CodeRenderer } from './code-block.js';
import { cx } from './cx.js';
import { type ChatLabels, useLabels } from './labels.js';
import { chunk, useChunk } from './lazy-chunk.js';
import { completeForDisplay } from './markdown-complete.js';
import { codeChunk } from './markdown-guard.js';
import { type Blocks, type Grow, splitBlocks } from './markdown-split.js';
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
  // Appending without a parse: fetched on mount, for when text streams (until it is here,
  // each token parses).
  const grow = useChunk(appendChunk);
  const { blocks, plainLast, lastTree, shown } = useMemo(
    () => (before.current = splitBlocks(text, before.current, code?.outsideCode, grow)),
    [text, code, grow],
  );
  if (plainLast && !packed) setPacked(true);
  const renderers = useMemo(
    () => makeRenderers(labels, allowRemoteImages, renderCode),
    [labels, allowRemoteImages, renderCode],
  );
  const last = blocks.length - 1;
  const sources = blocks.map((block, i) => {
    // The block being written is completed for display (markdown-complete.ts). Blocks are
    // drawn without their trailing blank lines (they draw nothing) while the reply streams,
    // so a block does not render again when the next one starts.
    if (i !== last && drawn.current[i]?.[0] !== block) drawn.current[i] = [block, block.trimEnd()];
    return i !== last
      ? drawn.current[i]![1]
      : streaming
        ? (shown ?? completeForDisplay(block)).trimEnd()
        : block;
  });
  // Too hostile to parse (markdown-guard.ts): the last block is the text as it is.
  const end = plainLast ? last : blocks.length;
  const groups: ReactNode[] = [];
  for (let at = 0; at < end; at += GROUP) {
    groups.push(
      <BlockGroup
        key={at}
        sources={sources.slice(at, at + GROUP)}
        // The split has just parsed the last block: its tree is this source's, unless
        // completing it changed more than trailing blanks.
        tree={
          at + GROUP >= blocks.length &&
          (sources[last] === blocks[last] || sources[last] === blocks[last]!.trimEnd())
            ? lastTree
            : undefined
        }
        renderers={renderers}
      />,
    );
  }
  return (
    <div className={cx('rc-markdown', className)}>
      {groups}
      {plainLast && blocks[last]}
    </div>
  );
}

/**
 * Blocks per group. A group of final blocks is skipped whole (its sources are the same
 * strings), so a frame of a long reply reconciles a few groups and the last one's blocks,
 * not every block of the reply: React cloned and compared ~150 memoized blocks per frame.
 */
const GROUP = 16;

/**
 * `GROUP` blocks in a row; `tree` is the last one's, when it is the reply's last block and
 * the split has just parsed it. Blocks only ever grow at the end, so a position is a stable
 * identity: the group at `at`, the block at its index in it.
 */
const BlockGroup = memo(
  function BlockGroup({
    sources,
    tree,
    renderers,
  }: {
    sources: string[];
    tree: Root | undefined;
    renderers: MdRenderers;
  }) {
    return sources.map((source, i) => (
      <MarkdownBlock
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        key={i}
        source={source}
        tree={i === sources.length - 1 ? tree : undefined}
        renderers={renderers}
      />
    ));
  },
  (a, b) =>
    a.tree === b.tree &&
    a.renderers === b.renderers &&
    a.sources.length === b.sources.length &&
    a.sources.every((source, i) => source === b.sources[i]),
);

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

/**
 * markdown-append.ts: its own chunk, fetched when a transcript (message-list.tsx) or a
 * `<Markdown>` mounts, ahead of the first reply; it warms itself at idle once here.
 */
export const appendChunk = chunk<Grow>(() => import('./markdown-append.js'));

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
