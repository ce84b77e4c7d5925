import type { Code, List, ListItem, Nodes, Parents, Root, Table, TableRow, Text } from 'mdast';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { CODE_START, completeForDisplay } from './markdown-complete.js';
import { tooHostileToParse } from './markdown-guard.js';
import type { Blocks } from './markdown-split.js';
import { warmUp } from './markdown-warm.js';
import { parseMarkdown } from './mdast-react.js';

/**
 * The split of `text`, which extends `before` (the reply so far), without a parse: words
 * appended after words lengthen the last text (`appendWords`), cells and rows a table
 * (`appendCells`, `appendRows`), items a list (`appendItems`), lines a quote
 * (`appendQuoteLine`), lines an open code fence (`appendCode`); a table's first two
 * lines are left to the drawing to parse. Null when the appended text needs a parse.
 */
export function extend(before: Blocks, text: string): Blocks | null {
  if (before.plainLast || !text.startsWith(before.text)) return null;
  // The page draws once a frame, so what arrived since is often several tokens: each is
  // appended in turn (a word, a pipe), as it would have been alone.
  // Each step's text is a prefix of `text` (a slice of it, not a copy: joining the pieces
  // onto the text so far would copy the whole reply once per piece).
  let split: Blocks | null = before;
  let at = before.text.length;
  for (const piece of text.slice(at).match(PIECES) ?? []) {
    const end = at + piece.length;
    const whole = extendBy(split, text.slice(0, end));
    if (!whole) {
      // A word and the line breaks after it: the word, then the line breaks.
      const words = piece.replace(/\n+$/, '');
      if (words === piece || words === '') return null;
      const head = extendBy(split, text.slice(0, at + words.length));
      split = head && extendBy(head, text.slice(0, end));
      if (!split) return null;
    } else {
      split = whole;
    }
    at = end;
  }
  if (split === before) return before;
  return { ...split, shown: shownAfter(before, split, text.slice(before.text.length)) };
}

/**
 * The last block of `after` completed for display (`completeForDisplay`), worked out from
 * `before`'s when the frame only appended words to a block that needed nothing completed:
 * its words cannot open, close or complete anything, so the block is drawn as written
 * (less one trailing space, as remend drops it). Completing it again ran remend's fourteen
 * passes over the whole block on every frame: ~450 ms of a 20k-character stream in
 * Chromium, CPU throttled 4×. Anything else is completed again.
 *
 * The conditions: the block before was shown as written; it ends in a letter, a digit or
 * the punctuation of a sentence, not in a marker that may wait for its content (`**`, `*`,
 * `` ` ``, `[`, `~`, `<`: `**` then `bold` opens a span) nor a line break; its last line
 * holds a letter (no list marker, rule or underline being written); it is not code (shown
 * as it comes, spaces and all); and the frame appended words (`WORDS`, as `appendWords`
 * appends them), then at most line breaks.
 */
function shownAfter(before: Blocks, after: Blocks, appended: string): string {
  const block = after.blocks[after.blocks.length - 1] ?? '';
  const was = before.blocks[before.blocks.length - 1] ?? '';
  const written = withoutSpace(was);
  const end = written[written.length - 1] ?? '';
  if (
    before.shown === written &&
    after.blocks.length === before.blocks.length &&
    WORDS.test(appended.replace(TRAILING_BREAKS, '')) &&
    WORDS.test(end) &&
    !SPACE.test(end) &&
    LETTER.test(was.slice(was.lastIndexOf('\n') + 1)) &&
    !CODE_START.test(was)
  ) {
    return withoutSpace(block);
  }
  return completeForDisplay(block);
}
/** remend drops one trailing space (two are a hard break). */
const withoutSpace = (text: string): string =>
  text.endsWith(' ') && !text.endsWith('  ') ? text.slice(0, -1) : text;
const TRAILING_BREAKS = /\n+$/;
/**
 * A word with the spaces and line breaks after it, line breaks, spaces, or any other space
 * character: the tokens of a reply, every character in one.
 */
const PIECES = /\S+[ \t]*\n*|\n+|[ \t]+|\s/g;

function extendBy(before: Blocks, text: string): Blocks | null {
  const appended = text.slice(before.text.length);
  const last = (before.blocks[before.blocks.length - 1] ?? '') + appended;
  // A table's header and delimiter row being written, after a block they cannot change: one
  // block whatever they become (a paragraph, or a table once the delimiter row is whole), and
  // completed for display (markdown-complete.ts), which parses what is drawn. Its own parse
  // would find nothing the drawing uses; the first body row parses the table.
  if (
    HEADER_ROWS.test(last) &&
    (before.blocks.length === 1 || closedBefore(before.blocks)) &&
    !tooHostileToParse(last)
  ) {
    return { text, blocks: [...before.blocks.slice(0, -1), last], plainLast: false };
  }
  if (!before.lastTree) return null;
  const from = before.lastTreeFrom ?? 0;
  const tree =
    appendWords(before.lastTree, from, before.text, appended) ??
    appendQuoteLine(before.lastTree, from, before.text, appended) ??
    appendItems(before.lastTree, from, before.text, appended) ??
    appendCode(before.lastTree, from, before.text, appended) ??
    appendCells(before.lastTree, from, before.text, appended) ??
    appendRowStart(before.lastTree, from, before.text, appended) ??
    appendRows(before.lastTree, from, before.text, appended);
  if (!tree) return null;
  const blocks = [...before.blocks];
  blocks[blocks.length - 1] += appended;
  return { ...before, text, blocks, lastTree: tree };
}

/** One or two lines, each starting with a pipe: a header row and its delimiter row. */
const HEADER_ROWS = /^\|[^\n]*(?:\n\|[^\n]*)?\n?$/;

/**
 * micromark reads the first line of `next` as under a paragraph — in a list item or a quote,
 * an empty item or one numbered other than 1 is text there (`1. *`: the `*` is no nested
 * list; `> 2. x`) — after a paragraph it interrupts, and after indented code, across blank
 * lines too (micromark#228: `2. x` or an empty `1. ` is paragraph text there). Parsed alone,
 * that line reads otherwise. Blocks here are told apart by their first characters: any block
 * that may be a paragraph counts (a table, a setext heading; reading them again is correct).
 * (markdown-split.ts's `splitBlocks` asks, once this chunk is here: parsing the block before
 * again costs a little more text per parse.)
 */
export const readUnder = (block: string, next: string): boolean =>
  INDENTED_CODE.test(block) ||
  // What the block after indented code reads as depends on what came before the code too:
  // after a quote's `>` line, `\t- tab\n2. two` is code then a list; alone, code then text.
  INDENTED_CODE.test(next) ||
  (CONTAINER_START.test(next) &&
    !endsInBlankLine(block) &&
    !CONTAINER_START.test(block) &&
    !NOT_PARAGRAPH.test(block));

/**
 * A block whose first line (after the blank lines the first block may start with) is indented
 * four columns: indented code, the only block that starts so.
 */
const INDENTED_CODE = /^(?:[ \t]*\n)*(?: {4}| {0,3}\t)[ \t]*\S/;
/** A list item's marker or a quote's. */
const CONTAINER_START = /^ {0,3}(?:>|(?:[-*+]|\d{1,9}[.)])(?:[ \t]|\r?\n|$))/;
/** A heading or a fence: no paragraph. */
const NOT_PARAGRAPH = /^ {0,3}(?:#{1,6}(?:[ \t]|\r?\n|$)|```|~~~)/;

/** The block ends in a blank line. Read from its end (a regex anchored there reads it all). */
function endsInBlankLine(block: string): boolean {
  let i = block.length - 1;
  if (block[i] !== '\n') return false;
  i--;
  while (i >= 0 && (block[i] === ' ' || block[i] === '\t' || block[i] === '\r')) i--;
  return i < 0 || block[i] === '\n';
}

/**
 * The block before the last cannot be changed by the last one's first line, whole or not: a
 * blank line lies between them and that line starts, at its first column, with what can only
 * begin a block of its own (a letter, `**`, `#`, `>`, `|`, a fence) — not a list marker or
 * indentation, which could continue a list across the blank line — or the block before is
 * one a blank line ends (it starts with one of those: a paragraph, a heading, a table, a
 * quote, a closed fence; the blocks that span one, an open fence or raw HTML, would not
 * have been split there), or it is a list and the last begins a list of another kind (`-`
 * after `1.`, `1.` or `*` after `-`). So a paragraph or a list written after a table, a
 * paragraph or a list does not parse it again on each token.
 */
export function closedBefore(blocks: string[]): boolean {
  const before = blocks[blocks.length - 2] ?? '';
  const last = blocks[blocks.length - 1] ?? '';
  if (!BLANK_LINE_END.test(before)) return false;
  if (OWN_BLOCK_START.test(before) || OWN_BLOCK_START.test(last)) return true;
  // A list goes on after a blank line only with an item of its own kind (or indented text).
  const bullet = BULLET.exec(before)?.[0];
  if (bullet) return /^\d/.test(last) || (BULLET.test(last) && !last.startsWith(bullet));
  return ORDERED.test(before) && BULLET.test(last);
}
const BLANK_LINE_END = /\n[ \t]*\r?\n$/;
const OWN_BLOCK_START = /^(?:\p{L}|\*\*|[#>|]|```|~~~)/u;
const BULLET = /^[-*+]/;
const ORDERED = /^\d{1,9}[.)]/;

/**
 * The parse of the blocks being written. The GFM literal links (`www.a.b`, `https://…`,
 * `a@b.c`) are found by a pass over every text of the tree after the parse — an eighth of a
 * small block's parse — that can find nothing in a text holding no `@`, `www`, `http`, and no
 * `&` or `\` (a character reference or an escape that could spell them): such text skips it.
 * Every other GFM construct needs a character of its own in the text (a table's `|` or, in
 * a table with no pipe, an aligned delimiter's `:-` or `-:`; strikethrough's `~`; a
 * footnote's or a task's `[`): text with none of them, and no literal
 * link, is parsed as CommonMark alone — GFM's syntax extensions, combined again on every
 * parse and tried at many characters, were ~40% of a short block's parse (a list item, a
 * paragraph's first words).
 */
export const parseTail = (text: string): Root =>
  parseMarkdown(
    text,
    MAY_LINK_LITERALLY.test(text)
      ? undefined
      : GFM_CHARACTERS.test(text)
        ? WITHOUT_LITERAL_LINKS
        : COMMONMARK,
  );
const MAY_LINK_LITERALLY = /[@&\\]|www|http/i;
/** A table's `|`, or its delimiter row's `:-`/`-:` (micromark reads `a\n-:` as a table). */
const GFM_CHARACTERS = /[|~[]|:-|-:/;
const COMMONMARK = {};
const WITHOUT_LITERAL_LINKS = {
  extensions: [gfm()],
  // Only the literal links' extension has a pass after the parse.
  mdastExtensions: gfmFromMarkdown().map(({ transforms: _, ...extension }) => extension),
};

/**
 * Most tokens of a streamed reply are words: appended after words, in a line that has
 * already said what it is, they cannot change how anything before them parses — they only
 * lengthen the last piece of text. Such a token extends the last block's tree (the text node
 * it ends with, copied along its path) instead of parsing the block again, so a token costs
 * what it adds, not the length of the paragraph, list or table being written.
 *
 * The words are letters, digits, spaces, `,;!?'"`, and the punctuation of sentences (`WORDS`)
 * — no character that opens or closes anything (`*_~\`[]<>&|#\\`, `@` `/` of an autolink, `$`,
 * a line break; `.` `:` `-` only on a line no autolink begins on). They go
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
  // A line break (or a blank line) after a line that has said what it is ends that line and
  // changes nothing drawn: what begins the next line decides, and is appended or parsed.
  const lineBreak = LINE_BREAK.test(appended);
  if (!lineBreak && (!WORDS.test(appended) || !endsSafely(before))) return null;
  // A paragraph's next line, begun with a letter after a word and a line break: it goes on
  // the paragraph (in a list item or a quote, lazily), whatever the line before said.
  // (The last two characters only: a regex anchored at the end would read the whole reply.)
  const nextLine = NEXT_LINE.test(before.slice(-2)) && LETTER_FIRST.test(appended);
  const lastLine = before.slice(before.lastIndexOf('\n') + 1);
  if (!nextLine && !decidedLine(lastLine)) return null;
  if (LINK_CHARS.test(appended) && LINK_START.test(lastLine + appended)) return null;
  // The path to the last leaf, through containers a word cannot leave.
  const path: Parents[] = [];
  let node: Nodes = tree;
  while ('children' in node && node.children.length > 0 && CONTAINERS.has(node.type)) {
    path.push(node);
    node = node.children[node.children.length - 1]!;
  }
  // The last leaf is text, or a span that has ended (`**b**`, `` `c` ``, a link): after it
  // and the spaces that follow it, words begin a text of their own.
  const after = node.type !== 'text' && PHRASING_PARENTS.has(path[path.length - 1]?.type ?? '');
  if ((node.type !== 'text' && !after) || node.position?.end.offset === undefined) return null;
  const end = treeFrom + node.position.end.offset;
  const gap = before.slice(end);
  if (lineBreak) return !nextLine && SPACES.test(gap) ? tree : null;
  if (
    nextLine
      ? gap !== '\n' || after || path[path.length - 1]!.type !== 'paragraph'
      : !SPACES.test(gap)
  )
    return null;
  // Trailing spaces are not text (the parser drops them at the end of a line): they stay in
  // the gap the next token is appended after.
  const words = appended.trimEnd();
  const added = words === '' ? '' : gap + words;
  if (after && added === '') return tree;
  const endPoint = node.position.end;
  const leaf: Text = {
    ...(after
      ? { type: 'text', value: added }
      : { ...(node as Text), value: (node as Text).value + added }),
    position: {
      start: after ? endPoint : node.position.start,
      end: {
        line: endPoint.line + (nextLine ? 1 : 0),
        column: nextLine ? words.length + 1 : endPoint.column + added.length,
        offset: endPoint.offset! + added.length,
      },
    },
  };
  // Copies of the leaf's ancestors, each with its last child replaced (or, after a span,
  // the leaf added to its parent).
  let copy: Nodes = leaf;
  for (let i = path.length - 1; i >= 0; i--) {
    const parent = path[i]!;
    const keep = after && i === path.length - 1 ? parent.children : parent.children.slice(0, -1);
    copy = { ...parent, children: [...keep, copy] } as Parents;
  }
  return copy as Root;
}

/**
 * Words and the punctuation of sentences: a hyphen, a colon, parentheses, dashes and curly
 * quotes, a full stop before a space or at the end (a sentence's last word, its line break
 * appended next). Of these only an autolink's `.` `:` `-` could join anything: not on a line
 * without `www`, `http` or `@` (nor `[` or `]`: `](` makes a link).
 */
const WORDS = /^(?:[\p{L}\p{N} \t,;!?'":()\p{Pd}\p{Pi}\p{Pf}…]|\.(?=\s|$))+$/u;
const LINK_CHARS = /[.:-]/;
const LINK_START = /www|http|@/i;
/**
 * A word or the end of a sentence, then a line break (not two spaces or a backslash: a hard
 * break) at the end.
 */
const NEXT_LINE = /[\p{L}\p{N}.,;:!?)'"]\n$/u;
/** A line break, or two: a blank line. */
const LINE_BREAK = /^\n\n?$/;
const LETTER_FIRST = /^\p{L}/u;
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
 * for its content), no `[` or `]` (words complete `[d]: ` — or `d]: ` under a `[` on the line
 * before — into a link definition), and no `<` before its first letter (words complete `<di`
 * into an HTML block; after a letter, a `<` opens at most inline HTML, which needs a `>`).
 */
const decidedLine = (line: string): boolean =>
  LETTER.test(line) && !/[[\]]/.test(line) && !BLOCK_HTML.test(line);
/** A `<` with no letter before it on its line: it may open an HTML block. */
const BLOCK_HTML = /^[^\p{L}]*</u;
const SPACES = /^[ \t]*$/;
/** What holds text and spans: a span that has ended may be followed by a text of words. */
const PHRASING_PARENTS = new Set<string>(['paragraph', 'heading', 'tableCell']);
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

/** The last block's table, when the block is one table with a body row; else null. */
function onlyTable(tree: Root): Table | null {
  const table = tree.children[0];
  return tree.children.length === 1 && table?.type === 'table' && table.children.length >= 2
    ? table
    : null;
}

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
  const table = onlyTable(tree);
  if (!table) return null;
  const header = table.children[0]!;
  const lastRow = table.children[table.children.length - 1]!;
  if (header.position?.start.offset === undefined || lastRow.position?.start.offset === undefined)
    return null;
  // The rows being written: from the start of the last line, which is the last row's own or
  // (after a line break) a new one.
  const text = before + appended;
  const from = before.lastIndexOf('\n') + 1;
  const lines = text.slice(from).split('\n');
  if (lines.slice(0, -1).some((line) => !line.startsWith('|'))) return null;
  if (lines[lines.length - 1] !== '' && !lines[lines.length - 1]!.startsWith('|')) return null;
  // The last row is the line the rows are written from, or the line before it (a row is one
  // line; a blank line between would end the table). Its start, not its end: the end of a
  // row whose words were appended (appendWords) is left where the parse put it.
  const lastRowStart = treeFrom + lastRow.position.start.offset;
  const replaces = lastRowStart === from;
  if (!replaces && (from === 0 || lastRowStart !== before.lastIndexOf('\n', from - 2) + 1)) {
    return null;
  }
  // A header and delimiter row of as many cells as the table's, written short: a row's cells
  // are read from its own line alone (as many as it holds, whatever the header's count).
  const headerStart = treeFrom + header.position.start.offset;
  const delimiterEnd = text.indexOf('\n', text.indexOf('\n', headerStart) + 1);
  if (delimiterEnd < 0 || delimiterEnd >= from) return null;
  const columns = header.children.length;
  const head = `|${'a|'.repeat(columns)}\n|${'-|'.repeat(columns)}\n`;
  const rowsText = text.slice(from);
  const parsed = parseMarkdown(head + rowsText);
  const mini = parsed.children[0];
  if (parsed.children.length !== 1 || mini?.type !== 'table') return null;
  const rows = mini.children.slice(1);
  // Offsets as in the block's tree: the rows start at `from`, not after the head.
  const shift = from - treeFrom - head.length;
  const lineShift =
    lastRow.position.start.line + (replaces ? 0 : 1) - (rows[0]?.position?.start.line ?? 0);
  const moved = rows.map((row) => moveBy(row, shift, lineShift) as TableRow);
  const kept = table.children.slice(0, replaces ? -1 : undefined);
  const grown: Table = {
    ...table,
    // The table's alignment is its delimiter row's, not the short head's.
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

/**
 * A code fence being written is text to its closing fence: lines appended to an open fence
 * (opened at the line's first column, so its lines keep their indentation) lengthen its code
 * with no parse, as long as no line of them could close it — none starts, after spaces, with
 * a backtick or a tilde — and none holds a carriage return.
 *
 * @param tree the last block's tree, its offsets counted from `treeFrom` in `before`
 * @returns the tree of `before + appended`'s last block, or null: parse it
 */
export function appendCode(
  tree: Root,
  treeFrom: number,
  before: string,
  appended: string,
): Root | null {
  const code = tree.children[0];
  if (tree.children.length !== 1 || code?.type !== 'code' || !code.position) return null;
  const { start, end } = code.position;
  if (start.column !== 1 || start.offset === undefined || treeFrom + end.offset! !== before.length)
    return null;
  const open = treeFrom + start.offset;
  const opening = FENCE.exec(before.slice(open, open + 4));
  const lineStart = before.lastIndexOf('\n') + 1;
  // The fence is open and its first line whole: what follows it is code until a closing line.
  if (!opening || lineStart <= open) return null;
  if (CLOSING.test(before.slice(lineStart) + appended)) return null;
  // The code is every line after the first, less the line break that ends the last.
  const body = before.slice(before.indexOf('\n', open) + 1) + appended;
  if (body.includes('\r')) return null;
  const breaks = appended.split('\n').length - 1;
  const grown: Code = {
    ...code,
    value: body.endsWith('\n') ? body.slice(0, -1) : body,
    position: {
      start,
      end: {
        line: end.line + breaks,
        column:
          breaks === 0
            ? end.column + appended.length
            : appended.length - appended.lastIndexOf('\n'),
        offset: end.offset! + appended.length,
      },
    },
  };
  return { ...tree, children: [grown] };
}

/** An opening fence at the line's first column. */
const FENCE = /^(?:```|~~~)/;
/** A line that could close a fence. */
const CLOSING = /^[ \t]*[`~]/m;

/**
 * Most tokens of a table row are its cells' words and pipes. A pipe that ends the last cell
 * (written after its text, not escaped) only lengthens that cell: the pipe and the spaces
 * around it are the cell's until another cell begins. Words after such a pipe begin a cell
 * of their own: the one before ends at the pipe, the new one runs from it to the end. Both
 * change the row with no parse; anything else is `appendRows`'s.
 *
 * @param tree the last block's tree, its offsets counted from `treeFrom` in `before`
 * @returns the tree of `before + appended`'s last block, or null: parse it
 */
export function appendCells(
  tree: Root,
  treeFrom: number,
  before: string,
  appended: string,
): Root | null {
  const table = onlyTable(tree);
  if (!table) return null;
  const row = table.children[table.children.length - 1]!;
  const cell = row.children[row.children.length - 1];
  const content = cell?.children[cell.children.length - 1];
  const lineStart = before.lastIndexOf('\n') + 1;
  if (
    !cell?.position ||
    !row.position ||
    content?.position?.end.offset === undefined ||
    treeFrom + row.position.start.offset! !== lineStart
  ) {
    return null;
  }
  // What follows the last cell's text, to the end (the row's and the cell's ends are not read:
  // appendWords leaves them where the parse put them).
  const after = before.slice(treeFrom + content.position.end.offset);
  /** A point on the row's line, by its offset in the block's tree. */
  const at = (offset: number) => ({
    line: row.position!.start.line,
    column: offset + treeFrom - lineStart + 1,
    offset,
  });
  const end = before.length - treeFrom;
  let cells: TableRow['children'];
  if (CELL_END.test(appended) && SPACES.test(after) && !before.endsWith('\\')) {
    // The pipe ends the last cell (a line break after it, the row).
    const cellEnd = end + appended.replace(/\n$/, '').length;
    cells = [
      ...row.children.slice(0, -1),
      { ...cell, position: { start: cell.position.start, end: at(cellEnd) } },
    ];
  } else if (cellWords(appended) && CLOSED_CELL.test(after)) {
    // Words after the pipe that ended the last cell: a new cell from that pipe.
    const pipe = before.lastIndexOf('|') - treeFrom;
    const start = end + appended.length - appended.trimStart().length;
    const value = appended.trim();
    cells = [
      ...row.children.slice(0, -1),
      { ...cell, position: { start: cell.position.start, end: at(pipe) } },
      {
        type: 'tableCell',
        children: [
          { type: 'text', value, position: { start: at(start), end: at(start + value.length) } },
        ],
        position: { start: at(pipe), end: at(end + appended.length) },
      },
    ];
  } else {
    return null;
  }
  const last = cells[cells.length - 1]!.position!.end;
  const grownRow: TableRow = {
    ...row,
    children: cells,
    position: { start: row.position.start, end: last },
  };
  const grown: Table = {
    ...table,
    children: [...table.children.slice(0, -1), grownRow],
    ...(table.position ? { position: { start: table.position.start, end: last } } : {}),
  };
  return { ...tree, children: [grown] };
}

/** A pipe and spaces, or the pipe that ends a row. */
const CELL_END = /^\|[ \t]*\n?$/;
/** After a cell's text: spaces, the pipe that ended it, spaces. */
const CLOSED_CELL = /^[ \t]*\|[ \t]*$/;

/**
 * A table's next row begins as its first pipe (a row of one empty cell, from the pipe to
 * the end), and its first words fill that cell: neither needs a parse.
 *
 * @param tree the last block's tree, its offsets counted from `treeFrom` in `before`
 * @returns the tree of `before + appended`'s last block, or null: parse it
 */
export function appendRowStart(
  tree: Root,
  treeFrom: number,
  before: string,
  appended: string,
): Root | null {
  const table = onlyTable(tree);
  if (!table) return null;
  const row = table.children[table.children.length - 1]!;
  if (row.position?.start.offset === undefined) return null;
  const rowStart = treeFrom + row.position.start.offset;
  const lineStart = before.lastIndexOf('\n') + 1;
  const text = before + appended;
  /** A point on the last line, by its offset in the block's tree. */
  const at = (line: number, offset: number) => ({
    line,
    column: offset + treeFrom - lineStart + 1,
    offset,
  });
  const start = lineStart - treeFrom;
  const end = text.length - treeFrom;
  let grownRow: TableRow;
  if (
    lineStart === before.length &&
    ROW_START.test(appended) &&
    rowStart === before.lastIndexOf('\n', before.length - 2) + 1
  ) {
    // The first pipe of a row, on the line after the last row.
    const line = row.position.start.line + 1;
    const position = { start: at(line, start), end: at(line, end) };
    grownRow = {
      type: 'tableRow',
      children: [{ type: 'tableCell', children: [], position }],
      position,
    };
  } else if (
    rowStart === lineStart &&
    row.children.length === 1 &&
    row.children[0]!.children.length === 0 &&
    ROW_START.test(before.slice(lineStart)) &&
    cellWords(appended)
  ) {
    // The first words of the row's first cell.
    const line = row.position.start.line;
    const value = appended.trim();
    const from = before.length - treeFrom + appended.length - appended.trimStart().length;
    const position = { start: at(line, start), end: at(line, end) };
    const words = {
      type: 'text' as const,
      value,
      position: { start: at(line, from), end: at(line, from + value.length) },
    };
    grownRow = {
      type: 'tableRow',
      children: [{ type: 'tableCell', children: [words], position }],
      position,
    };
  } else {
    return null;
  }
  const kept = table.children.slice(0, rowStart === lineStart ? -1 : undefined);
  const grown: Table = {
    ...table,
    children: [...kept, grownRow],
    ...(table.position
      ? { position: { start: table.position.start, end: grownRow.position!.end } }
      : {}),
  };
  return { ...tree, children: [grown] };
}

/** Words that begin a cell: its whole text, so no autolink can begin before them. */
const cellWords = (appended: string): boolean =>
  WORDS.test(appended) && !LINK_START.test(appended) && appended.trim() !== '';

/** A row's first pipe and the spaces after it. */
const ROW_START = /^\|[ \t]*$/;

/**
 * A list being written grows by its last item, and an item that starts a line at the first
 * column is read on its own once it has begun: the items before it are closed, and only a
 * blank line (loose items), a definition (links resolve across the document) or a line of
 * another kind (which ends the list) joins it to them. Text appended to a tight list's last
 * item — a new item's marker and first words, spans, lines continuing it — is parsed as that
 * item and what follows it alone, and the items read replace the last one, instead of
 * parsing the whole list again. Anything else — a blank line, a marker of another kind, a
 * nested list's own start, a definition — is parsed as before.
 *
 * @param tree the last block's tree, its offsets counted from `treeFrom` in `before`
 * @returns the tree of `before + appended`'s last block, or null: parse it
 */
export function appendItems(
  tree: Root,
  treeFrom: number,
  before: string,
  appended: string,
): Root | null {
  const list = tree.children[0];
  if (tree.children.length !== 1 || list?.type !== 'list' || list.spread) return null;
  const listStart = treeFrom + (list.position?.start.offset ?? -1);
  if (!afterBlankLine(before, listStart)) return null;
  // After indented code, micromark reads the list's first line as under a paragraph (`- 2. x`
  // holds no nested list there: markdown-split.ts): its first item parsed alone reads
  // otherwise. The items after it are read under the one before, alone or not.
  if (list.children.length === 1 && afterIndentedCode(before, listStart)) return null;
  const lastItem = list.children[list.children.length - 1];
  const start = lastItem?.position?.start;
  if (!lastItem || start?.offset === undefined || start.column !== 1 || lastItem.spread) {
    return null;
  }
  // The last item's text, from its marker at the first column of its line to the end.
  const itemStart = treeFrom + start.offset;
  const text = (before + appended).slice(itemStart);
  if (BLANK_LINE.test(text) || text.includes('\r')) return null;
  const parsed = parseTail(text);
  const mini = parsed.children[0];
  if (
    parsed.children.length !== 1 ||
    mini?.type !== 'list' ||
    mini.ordered !== list.ordered ||
    mini.spread ||
    mini.children.some((item) => item.spread || definesIn(item))
  ) {
    return null;
  }
  const kept = list.children.slice(0, -1);
  // A reference in the item may use a definition in an item before it: parse it all.
  if (text.includes('[') && kept.some(definesIn)) return null;
  const moved = mini.children.map(
    (item) => moveBy(item, itemStart - treeFrom, start.line - 1) as ListItem,
  );
  const grown: List = {
    ...list,
    // The first item's number is the list's start.
    ...(kept.length === 0 ? { start: mini.start } : {}),
    children: [...kept, ...moved],
    ...(list.position
      ? { position: { start: list.position.start, end: moved[moved.length - 1]!.position!.end } }
      : {}),
  };
  return { ...tree, children: [grown] };
}

/**
 * A block starts the text or follows a blank line: it interrupts no paragraph (under one, a
 * list's first line reads otherwise — `1. 3) x` is no nested list there), so the last block
 * parsed alone reads as it did.
 */
function afterBlankLine(text: string, start: number): boolean {
  if (start === 0) return true;
  if (start < 0 || text[start - 1] !== '\n') return false;
  return SPACES.test(text.slice(text.lastIndexOf('\n', start - 2) + 1, start - 1));
}

/**
 * The last line before `start` that is not blank is indented four columns: indented code,
 * open across the blank lines after it (or, more rarely, a line of a container's content).
 */
function afterIndentedCode(text: string, start: number): boolean {
  for (let end = start - 1; end > 0; ) {
    const lineStart = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(lineStart, end);
    if (!SPACES.test(line)) return INDENTED.test(line);
    end = lineStart - 1;
  }
  return false;
}
const INDENTED = /^(?: {4}| {0,3}\t)/;

/** A blank line: items apart are loose, and a blank line may end the list. */
const BLANK_LINE = /\n[ \t]*\n/;

/** A reference or footnote definition in a block container. */
const definesIn = (node: Nodes): boolean =>
  node.type === 'definition' ||
  node.type === 'footnoteDefinition' ||
  ((node.type === 'blockquote' || node.type === 'list' || node.type === 'listItem') &&
    (node.children as Nodes[]).some(definesIn));

/**
 * A quote's next line goes on its paragraph: its marker (`>` and a space) after a line that
 * ends in a word changes nothing drawn, and words begun with a letter after it are the
 * paragraph's next line — as `appendWords` appends a paragraph's next line. Only a quote at
 * the first column holding a paragraph last, not one in a list or a quote of its own.
 *
 * @param tree the last block's tree, its offsets counted from `treeFrom` in `before`
 * @returns the tree of `before + appended`'s last block, or null: parse it
 */
export function appendQuoteLine(
  tree: Root,
  treeFrom: number,
  before: string,
  appended: string,
): Root | null {
  const quote = tree.children[0];
  if (
    tree.children.length !== 1 ||
    quote?.type !== 'blockquote' ||
    quote.position?.start.column !== 1
  )
    return null;
  const paragraph = quote.children[quote.children.length - 1];
  if (paragraph?.type !== 'paragraph') return null;
  if (!afterBlankLine(before, treeFrom + (quote.position.start.offset ?? -1))) return null;
  const leaf = paragraph.children[paragraph.children.length - 1];
  if (leaf?.type !== 'text' || leaf.position?.end.offset === undefined) return null;
  const end = treeFrom + leaf.position.end.offset;
  // The text ends in a word or a sentence's end, then a line break (not a hard break).
  if (!NEXT_LINE.test(before.slice(end - 1, end + 1))) return null;
  const gap = before.slice(end);
  if (QUOTE_MARKER.test(gap.slice(1) + appended) && (gap === '\n' || gap === '\n>')) return tree;
  if (
    gap !== '\n> ' ||
    !WORDS.test(appended) ||
    !LETTER_FIRST.test(appended) ||
    (LINK_CHARS.test(appended) && LINK_START.test(appended))
  ) {
    return null;
  }
  const words = appended.trimEnd();
  const endPoint = leaf.position.end;
  const grown: Text = {
    ...leaf,
    value: `${leaf.value}\n${words}`,
    position: {
      start: leaf.position.start,
      end: {
        line: endPoint.line + 1,
        column: gap.length + words.length,
        offset: endPoint.offset! + gap.length + words.length,
      },
    },
  };
  const grownParagraph = { ...paragraph, children: [...paragraph.children.slice(0, -1), grown] };
  return {
    ...tree,
    children: [{ ...quote, children: [...quote.children.slice(0, -1), grownParagraph] }],
  };
}

/** A quote line's marker, with or without its space, and nothing after it. */
const QUOTE_MARKER = /^> ?$/;

// This chunk is fetched ahead of the first reply (markdown.tsx's `appendChunk`): once it is
// here, a small sample reply runs through the split and these appends at idle, so the
// reply's first tokens run compiled code (markdown-warm.ts).
warmUp({ extend, closedBefore, parseTail, readUnder });
