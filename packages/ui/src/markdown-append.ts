import type { Nodes, Parents, Root, Text } from 'mdast';

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
