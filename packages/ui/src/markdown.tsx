import { memo, type ReactNode, useMemo } from 'react';
import remend, { INCOMPLETE_IMAGE_PLACEHOLDER } from 'remend';
import { CodeBlock } from './code-block.js';
import { cx } from './cx.js';
import { type ChatLabels, useLabels } from './labels.js';
import { tooHostileToParse } from './markdown-guard.js';
import { type MdRenderers, parseMarkdown, renderRoot } from './mdast-react.js';

/**
 * Decides whether a remote image may load. `true` allows every http(s) image. Pass a stable
 * function (module-level or memoized): rows re-render when it changes.
 */
export type ImagePolicy = boolean | ((url: string) => boolean);

/**
 * Renders the body of a fenced code block in place of the built-in highlighter; the header
 * with the language and the copy button stays. Return plain elements (no
 * `dangerouslySetInnerHTML` of model output unless your highlighter escapes it). Pass a
 * stable function.
 */
export type CodeRenderer = (code: string, language: string | null) => ReactNode;

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
  /** @default undefined (the built-in highlighter, loaded on first use) */
  renderCode?: CodeRenderer | undefined;
  /** @default DEFAULT_LABELS (uses `copyCode`, `copied`, `imageBlocked`) */
  labels?: Partial<ChatLabels>;
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
  const blocks = useMemo(() => (tooHostileToParse(text) ? null : splitBlocks(text)), [text]);
  const renderers = useMemo(
    () => makeRenderers(labels, allowRemoteImages, renderCode),
    [labels, allowRemoteImages, renderCode],
  );
  return (
    <div className={cx('rc-markdown', className)}>
      {blocks
        ? blocks.map((block, i) => (
            <MarkdownBlock
              // Blocks only ever grow at the end, so the index is a stable identity.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above
              key={i}
              source={
                // `text-only` drops a half-typed link's markup instead of pointing it at a
                // placeholder URL.
                streaming && i === blocks.length - 1
                  ? remend(block, { linkMode: 'text-only' })
                  : block
              }
              renderers={renderers}
            />
          ))
        : // Too hostile to parse (markdown-guard.ts): the text as it is.
          text}
    </div>
  );
}

const MarkdownBlock = memo(function MarkdownBlock({
  source,
  renderers,
}: {
  source: string;
  renderers: MdRenderers;
}) {
  return <>{renderRoot(parseMarkdown(source), renderers)}</>;
});

/**
 * Top-level blocks, by the positions of the root's children in the one parser's syntax
 * tree (the splitting streamdown does with a second parser). The blank lines after a block
 * stay with it. Reference-style link or footnote definitions need the whole document, so
 * such text stays one block.
 */
export function splitBlocks(text: string): string[] {
  if (text === '') return [];
  if (/^ {0,3}\[[^\]\n]+\]:/m.test(text)) return [text];
  const starts = parseMarkdown(text).children.map((node) => node.position?.start.offset ?? 0);
  if (starts.length === 0) return [text];
  starts[0] = 0;
  return starts.map((start, i) => text.slice(start, starts[i + 1] ?? text.length));
}

function makeRenderers(
  labels: Pick<ChatLabels, 'copyCode' | 'copied' | 'imageBlocked'>,
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
    code(value, lang, key) {
      return (
        <CodeBlock key={key} code={value} language={lang} labels={labels} renderCode={renderCode} />
      );
    },
  };
}
