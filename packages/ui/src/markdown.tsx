import { Lexer } from 'marked';
import { memo, type ReactNode, useMemo } from 'react';
import ReactMarkdown, { type Components, defaultUrlTransform } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import remend, { INCOMPLETE_IMAGE_PLACEHOLDER } from 'remend';
import { CopyButton } from './copy-button.js';
import { cx } from './cx.js';
import { type ChatLabels, useLabels } from './labels.js';

/**
 * Decides whether a remote image may load. `true` allows every http(s) image. Pass a stable
 * function (module-level or memoized): rows re-render when it changes.
 */
export type ImagePolicy = boolean | ((url: string) => boolean);

/**
 * Renders the body of a fenced code block, e.g. with a syntax highlighter; the header with
 * the language and the copy button stays. Return plain elements (no `dangerouslySetInnerHTML`
 * of model output unless your highlighter escapes it). Pass a stable function.
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
  /** @default undefined (a plain `<pre><code>`) */
  renderCode?: CodeRenderer | undefined;
  /** @default DEFAULT_LABELS (uses `copyCode`, `copied`, `imageBlocked`) */
  labels?: Partial<ChatLabels>;
  className?: string;
}

/**
 * Streaming-safe, XSS-safe Markdown. Raw HTML is shown as text (never parsed), links keep only
 * http(s)/mailto and relative URLs (others render as plain text), images are off by default.
 * The text is split into top-level blocks so a streaming reply re-parses only its last block.
 */
export function Markdown({
  text,
  streaming = false,
  allowRemoteImages = false,
  renderCode,
  labels: labelsProp,
  className,
}: MarkdownProps) {
  const labels = useLabels(labelsProp);
  const blocks = useMemo(() => splitBlocks(text), [text]);
  const components = useMemo(
    () => makeComponents(labels, allowRemoteImages, renderCode),
    [labels, allowRemoteImages, renderCode],
  );
  return (
    <div className={cx('rc-markdown', className)}>
      {blocks.map((block, i) => (
        <MarkdownBlock
          // Blocks only ever grow at the end, so the index is a stable identity.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          key={i}
          source={streaming && i === blocks.length - 1 ? heal(block) : block}
          components={components}
        />
      ))}
    </div>
  );
}

const REMARK_PLUGINS = [remarkGfm, remarkHtmlAsText];

const MarkdownBlock = memo(function MarkdownBlock({
  source,
  components,
}: {
  source: string;
  components: Components;
}) {
  return (
    <ReactMarkdown
      remarkPlugins={REMARK_PLUGINS}
      components={components}
      urlTransform={urlTransform}
      skipHtml={false}
    >
      {source}
    </ReactMarkdown>
  );
});

function heal(block: string): string {
  // `text-only` drops a half-typed link's markup instead of pointing it at a placeholder URL.
  return remend(block, { linkMode: 'text-only' });
}

/**
 * Top-level blocks by marked's lexer (the splitting streamdown does). Reference-style link or
 * footnote definitions need the whole document, so such text stays one block.
 */
export function splitBlocks(text: string): string[] {
  if (text === '') return [];
  if (/^ {0,3}\[[^\]\n]+\]:/m.test(text)) return [text];
  const blocks: string[] = [];
  for (const token of Lexer.lex(text, { gfm: true })) {
    if (token.type === 'space' && blocks.length > 0) {
      blocks[blocks.length - 1] += token.raw;
      continue;
    }
    blocks.push(token.raw);
  }
  return blocks;
}

function urlTransform(url: string): string {
  if (url === INCOMPLETE_IMAGE_PLACEHOLDER) return url;
  // http(s), mailto, irc, xmpp and relative URLs; `javascript:`, `data:`, `vbscript:` → ''.
  return defaultUrlTransform(url);
}

/** Raw HTML in a reply is shown as the text it is, so `<img onerror=…>` can never run. */
function remarkHtmlAsText() {
  return (tree: MdNode) => {
    visit(tree);
  };
}

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

function visit(node: MdNode): void {
  const children = node.children;
  if (!children) return;
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!;
    if (child.type === 'html') {
      const text: MdNode = { type: 'text', value: child.value ?? '' };
      // Block-level HTML sits in the root or a container: give it a paragraph to live in.
      children[i] =
        node.type === 'paragraph' || isPhrasing(node)
          ? text
          : { type: 'paragraph', children: [text] };
    } else {
      visit(child);
    }
  }
}

function isPhrasing(node: MdNode): boolean {
  return ['emphasis', 'strong', 'delete', 'link', 'linkReference', 'heading', 'tableCell'].includes(
    node.type,
  );
}

function makeComponents(
  labels: Pick<ChatLabels, 'copyCode' | 'copied' | 'imageBlocked'>,
  images: ImagePolicy,
  renderCode: CodeRenderer | undefined,
): Components {
  return {
    a({ href, children, node: _node, ...rest }) {
      if (!href) return <span className="rc-link-inert">{children}</span>;
      return (
        <a {...rest} href={href} target="_blank" rel="noopener noreferrer nofollow">
          {children}
        </a>
      );
    },
    img({ src, alt }) {
      if (src === INCOMPLETE_IMAGE_PLACEHOLDER) return null;
      const url = typeof src === 'string' ? src : '';
      const allowed =
        /^https?:\/\//i.test(url) && (typeof images === 'function' ? images(url) : images);
      if (!allowed) {
        return <span className="rc-image-blocked">{labels.imageBlocked(alt ?? '')}</span>;
      }
      return <img src={url} alt={alt ?? ''} loading="lazy" referrerPolicy="no-referrer" />;
    },
    pre({ children, node }) {
      const code = hastText(node as HastNode | undefined).replace(/\n$/, '');
      const lang = languageOf(node as HastNode | undefined);
      const body = renderCode ? renderCode(code, lang) : <pre>{children}</pre>;
      return (
        <div className="rc-code" data-part="code">
          <div className="rc-code__header">
            <span className="rc-code__lang">{lang}</span>
            <CopyButton text={code} label={labels.copyCode} copiedLabel={labels.copied} />
          </div>
          {body}
        </div>
      );
    },
    table({ children, node: _node, ...rest }) {
      return (
        <div className="rc-table-scroll">
          <table {...rest}>{children}</table>
        </div>
      );
    },
  };
}

interface HastNode {
  type: string;
  value?: string;
  tagName?: string;
  properties?: { className?: unknown };
  children?: HastNode[];
}

function hastText(node: HastNode | undefined): string {
  if (!node) return '';
  if (node.type === 'text') return node.value ?? '';
  return (node.children ?? []).map(hastText).join('');
}

function languageOf(node: HastNode | undefined): string | null {
  const code = node?.children?.find((c) => c.tagName === 'code');
  const classes = code?.properties?.className;
  if (!Array.isArray(classes)) return null;
  for (const c of classes) {
    if (typeof c === 'string' && c.startsWith('language-')) return c.slice('language-'.length);
  }
  return null;
}
