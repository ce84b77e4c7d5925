import type { Nodes, Parents, Root, Table, TableRow, Text } from 'mdast';
import { parseMarkdown } from './mdast-react.js';

/**
 * Most tokens of a streamed reply are words: appended after words, in a line that has
 * already said what it is, they cannot change how anything before them parses — they only
 * lengthen the last piece of text. Such a token extends the last block's tree (the text node
 * it ends with, copied along its path) instead of parsing the block again, so a token costs
 * what it adds, not the length of the paragraph, list or table being written.
 *
 * The words are letters, digits, spaces and `,;!?'"` — no character that opens or closes
 * anything (`*_~\`[]()<>&|#\\`, `.` `:` `@` `/` of an autolink, `$`, a line break). They go
 * where nothing can join them to what came before: the text so far ends in whitespace or in a
 * word of letters and digits (not `**`, not `www.example`, not `&amp`), its last line holds a
 * letter and no `[` or `<` (so it is not a marker or a rule waiting for its content — `1.`,
 * `-`, `===` — nor a link definition or an HTML block being opened), the
 * tree's last leaf is text in a paragraph, heading, list item, quote or table cell, and only
 * spaces lie between that text and the end. Anything else is parsed as before; the tests
 * render every prefix of tricky and random documents both ways and require the same DOM.
 *
 * @param tree the last block's tree, its offsets counted from `treeFrom` in `before`
 * @returns the tree of `before + appended`'s last block, or null: parse it
 */
export function appendWords(
  tree: Root,
  treeFrom: number,
  before: string,
  appended: string,
): Root | null {
  if (!WORDS.test(appended) || !endsSafely(before)) return null;
  if (!decidedLine(before.slice(before.lastIndexOf('\n') + 1))) return null;
  // The path to the last leaf, through containers a word cannot leave.
  const path: Parents[] = [];
  let node: Nodes = tree;
  while ('children' in node && node.children.length > 0) {
    if (!CONTAINERS.has(node.type)) return null;
    path.push(node);
    node = node.children[node.children.length - 1]!;
  }
  if (node.type !== 'text' || node.position?.end.offset === undefined) return null;
  const end = treeFrom + node.position.end.offset;
  const gap = before.slice(end);
  if (!SPACES.test(gap)) return null;
  // Trailing spaces are not text (the parser drops them at the end of a line): they stay in
  // the gap the next token is appended after.
  const words = appended.trimEnd();
  const added = words === '' ? '' : gap + words;
  const leaf: Text = {
    ...node,
    value: node.value + added,
    position: {
      start: node.position.start,
      end: {
        ...node.position.end,
        offset: node.position.end.offset + added.length,
        column: node.position.end.column + added.length,
      },
    },
  };
  // Copies of the leaf's ancestors, each with its last child replaced.
  let copy: Nodes = leaf;
  for (let i = path.length - 1; i >= 0; i--) {
    const parent = path[i]!;
    copy = { ...parent, children: [...parent.children.slice(0, -1), copy] } as Parents;
  }
  return copy as Root;
}

const WORDS = /^[\p{L}\p{N} \t,;!?'"]+$/u;
const WORD_CHAR = /[\p{L}\p{N}]/u;
const SPACE = /\s/;

/**
 * The text so far ends in whitespace, or in a word of letters and digits only. Read from the
 * end, one word back at most (a regex anchored at the end would try every start in the text).
 */
function endsSafely(text: string): boolean {
  let i = text.length;
  while (i > 0 && WORD_CHAR.test(text[i - 1]!)) i--;
  return i === 0 || SPACE.test(text[i - 1]!);
}
const LETTER = /\p{L}/u;

/**
 * The last line has said what it is: it holds a letter (it is not `1.`, `-` or `===` waiting
 * for its content), and no `[` or `<` (words complete `[d]: ` into a link definition and
 * `<di` into an HTML block).
 */
const decidedLine = (line: string): boolean =>
  LETTER.test(line) && !line.includes('[') && !line.includes('<');
const SPACES = /^[ \t]*$/;
/** Where a word may be appended to the last text: blocks, not inline spans. */
const CONTAINERS = new Set<string>([
  'root',
  'paragraph',
  'heading',
  'list',
  'listItem',
  'blockquote',
  'table',
  'tableRow',
  'tableCell',
]);

/**
 * A table being written grows by rows, and GFM reads each row on its own (its cells against
 * the header's): text appended to a table's last rows — lines that each start with `|`, no
 * blank line — is parsed as those rows alone under the header and delimiter row, and they
 * replace the table's last row (or follow it), instead of parsing the whole table again.
 * Any other text, or rows that do not read as the table's, are parsed as before.
 *
 * @param tree the last block's tree, its offsets counted from `treeFrom` in `before`
 * @returns the tree of `before + appended`'s last block, or null: parse it
 */
export function appendRows(
  tree: Root,
  treeFrom: number,
  before: string,
  appended: string,
): Root | null {
  const table = tree.children[tree.children.length - 1];
  if (tree.children.length !== 1 || table?.type !== 'table' || table.children.length < 2) {
    return null;
  }
  const header = table.children[0]!;
  const lastRow = table.children[table.children.length - 1]!;
  if (header.position?.start.offset === undefined || lastRow.position?.end.offset === undefined)
    return null;
  // The rows being written: from the start of the last line, which is the last row's own or
  // (after a line break) a new one.
  const text = before + appended;
  const from = before.lastIndexOf('\n') + 1;
  const lines = text.slice(from).split('\n');
  if (lines.slice(0, -1).some((line) => !line.startsWith('|'))) return null;
  if (lines[lines.length - 1] !== '' && !lines[lines.length - 1]!.startsWith('|')) return null;
  const lastRowEnd = treeFrom + lastRow.position.end.offset;
  const replaces = from < lastRowEnd;
  // The last row is the line the rows are written from, or it ended on the line before (a
  // blank line between would end the table).
  const lastRowStart = treeFrom + (lastRow.position.start.offset ?? 0);
  if (replaces ? lastRowStart !== from : !LINE_END.test(before.slice(lastRowEnd, from))) {
    return null;
  }
  // The header and the delimiter row, as written.
  const headerStart = treeFrom + header.position.start.offset;
  const delimiterEnd = text.indexOf('\n', text.indexOf('\n', headerStart) + 1);
  if (delimiterEnd < 0 || delimiterEnd >= from) return null;
  const head = text.slice(headerStart, delimiterEnd + 1);
  const rowsText = text.slice(from);
  const parsed = parseMarkdown(head + rowsText);
  const mini = parsed.children[0];
  if (parsed.children.length !== 1 || mini?.type !== 'table') return null;
  const rows = mini.children.slice(1);
  // Offsets as in the block's tree: the rows start at `from`, not after the head.
  const shift = from - treeFrom - head.length;
  const lineShift =
    (replaces ? lastRow.position.start.line : lastRow.position.end.line + 1) -
    (rows[0]?.position?.start.line ?? 0);
  const moved = rows.map((row) => moveBy(row, shift, lineShift) as TableRow);
  const kept = table.children.slice(0, replaces ? -1 : undefined);
  const grown: Table = {
    ...table,
    children: [...kept, ...moved],
    ...(table.position && moved.length > 0
      ? { position: { start: table.position.start, end: moved[moved.length - 1]!.position!.end } }
      : {}),
  };
  return { ...tree, children: [grown] };
}

/** A copy of a subtree with its positions shifted (points may be shared between nodes). */
function moveBy(node: Nodes, offset: number, lines: number): Nodes {
  const point = (p: { line: number; column: number; offset?: number | undefined }) => ({
    ...p,
    line: p.line + lines,
    ...(p.offset === undefined ? {} : { offset: p.offset + offset }),
  });
  const copy = {
    ...node,
    ...(node.position
      ? { position: { start: point(node.position.start), end: point(node.position.end) } }
      : {}),
  } as Nodes;
  if ('children' in copy) {
    (copy as Parents).children = (node as Parents).children.map((child) =>
      moveBy(child, offset, lines),
    ) as Parents['children'];
  }
  return copy;
}

const LINE_END = /^[ \t]*\n$/;
