import type {
  Definition,
  ListItem,
  Nodes,
  Parents,
  PhrasingContent,
  Root,
  RootContent,
  TableRow,
} from 'mdast';
import { fromMarkdown, type Options } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import type { ReactNode } from 'react';
import { safeUrl } from './safe-url.js';

/**
 * The one Markdown parser (micromark, CommonMark + GFM) and a small renderer from its syntax
 * tree straight to React elements. Nothing is ever set as HTML: raw HTML in a reply is a
 * node like any other and renders as the text it is.
 */
const PARSE_OPTIONS = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

/** `options`: the parser's, for a caller that knows some of its work is not needed. */
export function parseMarkdown(text: string, options: Options = PARSE_OPTIONS): Root {
  return fromMarkdown(text, options);
}

/** How the caller renders what needs policy or state: links, images, code blocks. */
export interface MdRenderers {
  link(url: string, title: string | null, children: ReactNode, key: number): ReactNode;
  image(url: string, alt: string, key: number): ReactNode;
  code(value: string, lang: string | null, key: number): ReactNode;
  /** The box a table scrolls in (sideways, when wider than the reply). */
  table(table: ReactNode, key: number): ReactNode;
}

interface Context {
  r: MdRenderers;
  /** Reference-style definitions of the document, by normalized label. */
  defs: Map<string, Definition>;
  /** Inside a tight list item: paragraphs render without `<p>`. */
  tight: boolean;
}

export function renderRoot(root: Root, r: MdRenderers): ReactNode[] {
  const defs = new Map<string, Definition>();
  collectDefinitions(root, defs);
  return renderChildren(root, { r, defs, tight: false });
}

function collectDefinitions(node: Nodes, defs: Map<string, Definition>): void {
  if (node.type === 'definition') {
    if (!defs.has(node.identifier)) defs.set(node.identifier, node);
    return;
  }
  if ('children' in node) for (const child of node.children) collectDefinitions(child, defs);
}

function renderChildren(node: Parents, ctx: Context): ReactNode[] {
  return (node.children as RootContent[]).map((child, i) => renderNode(child, i, ctx));
}

function renderNode(node: RootContent, key: number, ctx: Context): ReactNode {
  switch (node.type) {
    case 'paragraph':
      return ctx.tight ? renderChildren(node, ctx) : <p key={key}>{renderChildren(node, ctx)}</p>;
    case 'heading': {
      const Tag = `h${node.depth}` as 'h1';
      return <Tag key={key}>{renderChildren(node, ctx)}</Tag>;
    }
    case 'thematicBreak':
      return <hr key={key} />;
    case 'blockquote':
      return <blockquote key={key}>{renderChildren(node, { ...ctx, tight: false })}</blockquote>;
    case 'list': {
      const items = node.children.map((item, i) => renderItem(item, i, !node.spread, ctx));
      return node.ordered ? (
        <ol key={key} start={node.start === 1 ? undefined : (node.start ?? undefined)}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'code':
      return ctx.r.code(node.value, node.lang ?? null, key);
    case 'html':
      // Raw HTML is shown as the text it is; a block of it still gets a paragraph.
      // (Inline when it does not start its line.)
      return ctx.tight || (node.position?.start.column ?? 1) > 1 ? (
        node.value
      ) : (
        <p key={key}>{node.value}</p>
      );
    case 'table':
      return ctx.r.table(
        <table>
          <thead>{renderRow(node.children[0], 'th', node.align, 0, ctx)}</thead>
          <tbody>
            {node.children.slice(1).map((row, i) => renderRow(row, 'td', node.align, i, ctx))}
          </tbody>
        </table>,
        key,
      );
    case 'footnoteDefinition':
      return (
        <div className="rc-footnote" key={key}>
          <sup>{node.label ?? node.identifier}</sup> {renderChildren(node, { ...ctx, tight: true })}
        </div>
      );
    default:
      // A definition renders nothing (renderPhrasing's default); its references use it.
      return renderPhrasing(node as PhrasingContent, key, ctx);
  }
}

function renderItem(item: ListItem, key: number, tightList: boolean, ctx: Context): ReactNode {
  const tight = tightList && !item.spread;
  const inner = renderChildren(item, { ...ctx, tight });
  return (
    <li key={key} className={item.checked == null ? undefined : 'rc-task'}>
      {item.checked == null ? null : (
        <input type="checkbox" checked={item.checked} disabled readOnly />
      )}
      {inner}
    </li>
  );
}

/** One style per alignment, shared by every cell of every table and render. */
const ALIGN = {
  left: { textAlign: 'left' },
  center: { textAlign: 'center' },
  right: { textAlign: 'right' },
  none: undefined,
} as const;

function renderRow(
  row: TableRow | undefined,
  Cell: 'th' | 'td',
  align: ReadonlyArray<'left' | 'right' | 'center' | null> | null | undefined,
  key: number,
  ctx: Context,
): ReactNode {
  if (!row) return null;
  return (
    <tr key={key}>
      {row.children.map((cell, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: cells never move
        <Cell key={i} style={ALIGN[align?.[i] ?? 'none']}>
          {renderChildren(cell, ctx)}
        </Cell>
      ))}
    </tr>
  );
}

function renderPhrasing(node: PhrasingContent, key: number, ctx: Context): ReactNode {
  switch (node.type) {
    case 'text':
      return node.value;
    case 'emphasis':
      return <em key={key}>{renderChildren(node, ctx)}</em>;
    case 'strong':
      return <strong key={key}>{renderChildren(node, ctx)}</strong>;
    case 'delete':
      return <del key={key}>{renderChildren(node, ctx)}</del>;
    case 'inlineCode':
      return <code key={key}>{node.value}</code>;
    case 'break':
      return <br key={key} />;
    case 'html':
      return node.value;
    case 'link':
      return ctx.r.link(safeUrl(node.url), node.title ?? null, renderChildren(node, ctx), key);
    case 'image':
      return ctx.r.image(node.url, node.alt ?? '', key);
    case 'linkReference': {
      const def = ctx.defs.get(node.identifier);
      const children = renderChildren(node, ctx);
      return def ? ctx.r.link(safeUrl(def.url), def.title ?? null, children, key) : children;
    }
    case 'imageReference': {
      const def = ctx.defs.get(node.identifier);
      return def ? ctx.r.image(def.url, node.alt ?? '', key) : (node.alt ?? '');
    }
    case 'footnoteReference':
      return <sup key={key}>{node.label ?? node.identifier}</sup>;
    default:
      return null;
  }
}
