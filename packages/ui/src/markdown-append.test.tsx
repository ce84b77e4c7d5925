import fc from 'fast-check';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { answerTokens, showcaseAnswer } from '../../../bench/lib/showcase-answer.js';
import { DEFAULT_LABELS } from './labels.js';
import { type CodeRenderer, makeRenderers } from './markdown.js';
import * as grow from './markdown-append.js';
import { appendItems, appendQuoteLine, appendRows, appendWords } from './markdown-append.js';
import { completeForDisplay } from './markdown-complete.js';
import { type Blocks, splitBlocks } from './markdown-split.js';
import { parseMarkdown, renderRoot } from './mdast-react.js';

const renderCode: CodeRenderer = (code) => code;
const renderers = makeRenderers(DEFAULT_LABELS, undefined, renderCode);
/** The last block as <Markdown> draws it: its tree from the split, or its text parsed. */
const html = (blocks: Blocks) => {
  const last = blocks.blocks[blocks.blocks.length - 1];
  const tree = blocks.lastTree ?? (blocks.plainLast || !last ? null : parseMarkdown(last));
  return tree ? renderToStaticMarkup(<div>{renderRoot(tree, renderers)}</div>) : null;
};

/** What replies are made of, markup that words could join or complete included. */
const PIECES = [
  'word ',
  'Words, ',
  'more',
  'x',
  'y! ',
  '"q" ',
  "it's ",
  '12 ',
  'ü ',
  '\n',
  '\n\n',
  '- ',
  '1. ',
  '# ',
  '## ',
  '> ',
  '| ',
  ' | ',
  '|',
  '---',
  '===',
  '**',
  '*',
  '_',
  '`',
  '```',
  '[a]',
  '(u)',
  '[d]: ',
  'http://x.y ',
  'www.a.b',
  '<b>',
  '<di',
  '&amp',
  ';',
  '    ',
  '\t',
  ' ',
  '~~',
  '[^1]',
  ':',
  '.',
  // Tables: a header and its delimiter row, rows and parts of rows.
  '| a | b |\n| - | - |\n',
  '|:-|-:|\n',
  '| c | d |\n',
  '| e ',
  '| `f` ',
  '|\n',
  // Lists and quotes: items of each kind, nested and task items, quote lines.
  '2. ',
  '3) ',
  '* ',
  '+ ',
  '  - ',
  '   ',
  '- [ ] ',
  '>',
  '> > ',
  '\n- ',
  '\n1. ',
  '\n> ',
];

/** The text a failure names: whole when short, else its last 40 characters. */
const where = (text: string) => JSON.stringify(text.length > 200 ? text.slice(-40) : text);

/**
 * Streams `chunks` through the split with the appenders, checking after each that it splits
 * and draws as the same split with nothing to grow the tree (the last blocks parsed again).
 */
/**
 * The split with nothing to grow the tree: the last blocks parsed again (with the block the
 * parser reads them under, `readUnder`, as with the appends).
 */
const REPARSE = {
  extend: () => null,
  closedBefore: () => false,
  parseTail: parseMarkdown,
  readUnder: grow.readUnder,
};

function expectGrownAsParsed(chunks: Iterable<string>): void {
  let before: Blocks | null = null;
  let text = '';
  for (const chunk of chunks) {
    text += chunk;
    const grown = splitBlocks(text, before, undefined, grow);
    const parsed = splitBlocks(text, before, undefined, REPARSE);
    expect(grown.blocks, where(text)).toEqual(parsed.blocks);
    expect(html(grown), where(text)).toBe(html(parsed));
    // The last block completed for display, when the appends worked it out from the one
    // before, is what completing it again gives.
    if (grown.shown !== undefined) {
      expect(grown.shown, where(text)).toBe(completeForDisplay(grown.blocks.at(-1) ?? ''));
    }
    before = grown;
  }
}

/** As `expectGrownAsParsed`, and the last split is the whole text's, parsed at once. */
function expectStreamedAsWhole(chunks: string[]): void {
  expectGrownAsParsed(chunks);
  const streamed = chunks.reduce<Blocks | null>(
    (before, _, i) => splitBlocks(chunks.slice(0, i + 1).join(''), before, undefined, grow),
    null,
  )!;
  const whole = splitBlocks(chunks.join(''));
  expect(streamed.blocks).toEqual(whole.blocks);
  expect(html(streamed)).toBe(html(whole));
}

/** `doc` in pieces of the sizes `cuts` gives, round and round, to its end. */
function cutInto(doc: string, cuts: number[]): string[] {
  const pieces: string[] = [];
  for (let at = 0, i = 0; at < doc.length; i++) {
    const next = Math.min(doc.length, at + cuts[i % cuts.length]!);
    pieces.push(doc.slice(at, next));
    at = next;
  }
  return pieces;
}

describe('parseTail: the parse of the blocks being written', () => {
  it.each([
    // No GFM character: CommonMark alone.
    '1. The server answers `201` at *once*.\n2. **Next**',
    '> a quote\n\n# Head\n\n    code\n',
    'para\n---\n',
    // A GFM construct's character: the GFM parse.
    '| a | b |\n| - | - |\n| 1 | 2 |',
    'a ~~struck~~ word',
    // A table with no pipe: its delimiter row's colon.
    'word \n---:',
    'word\n:--',
    '- [ ] a task\n- [x] done',
    'a note[^1]\n\n[^1]: the note',
    'see www.example.com or a@b.co',
  ])('%j parses to the tree the whole GFM parse gives', (text) => {
    expect(grow.parseTail(text)).toEqual(parseMarkdown(text));
  });
});

describe('appendWords: words appended without a parse', () => {
  it('every token of a random reply splits and draws as a parse would', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 3 }), {
          minLength: 1,
          maxLength: 40,
        }),
        (tokens) => expectGrownAsParsed(tokens.map((token) => token.join(''))),
      ),
      { numRuns: 120 },
    );
  }, 60_000);

  it('every cut of a streamed table splits and draws as a parse would', () => {
    const cell = fc.constantFrom('a', 'word more', '**b**', '`c`', '', 'x\\|y', ':', '-', '1.');
    const row = fc
      .tuple(fc.array(cell, { minLength: 1, maxLength: 3 }), fc.boolean())
      .map(([cells, closed]) => `| ${cells.join(' | ')}${closed ? ' |' : ''}`);
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 5 }),
        fc.constantFrom('', '\n', '\n\nafter', '\n\n| new |'),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 40 }),
        (rows, end, cuts) =>
          expectGrownAsParsed(
            cutInto(`intro\n\n| h1 | h2 |\n|:--|--:|\n${rows.join('\n')}${end}`, cuts),
          ),
      ),
      { numRuns: 80 },
    );
  }, 60_000);

  it('every cut of a streamed list or quote splits and draws as a parse would', () => {
    // Items of one kind and of others, spans, nested items, lazy and indented lines, blank
    // lines (loose items), a definition and its reference, quote lines after quote lines.
    const line = fc.constantFrom(
      '- a word',
      '- **b** c',
      '- `c` and *d*',
      '* other kind',
      '1. one',
      '2. two `x`',
      '10) ten',
      '  - nested',
      '   more of it',
      'lazy words',
      '',
      '- [ ] task',
      '- [r]: https://x.y',
      '- see [r] and [^1]',
      '---',
      '===',
      '- - -',
      '> quote words',
      '> more *words*',
      '> - in a quote',
      '>',
      '| t | u |',
      // Markers with nothing after them, hard breaks, headings, quotes and fences in items,
      // half-written spans and links, literal links, setext underlines, escapes, a fence.
      '1. ',
      '-',
      '* * *',
      '2) x',
      '11. eleven',
      '1.five',
      '- a  ',
      '- b\\',
      '- # h',
      '- > q',
      '  > q2',
      '> 1. x',
      '  ===',
      '- **open',
      '- `tick',
      '- [link](http://x',
      '- www.x.y and a@b.co',
      '- \\- escaped',
      '   ```',
      '```',
      '<div>',
      'x | y',
      '|-|-|',
      // Indented code: micromark reads the block after it as if it interrupted a paragraph.
      '\t- tab',
      '    four spaces',
      // An item that reads otherwise under a paragraph (`3)` is no nested list there).
      '1. 3) x',
    );
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 8 }),
        fc.constantFrom('', '\n', '\n\nafter'),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 40 }),
        (lines, end, cuts) =>
          expectGrownAsParsed(cutInto(`intro\n\n${lines.join('\n')}${end}`, cuts)),
      ),
      { numRuns: 200 },
    );
  }, 60_000);

  it('splits and draws the block after an indented code block as the whole text parsed', () => {
    // micromark reads the block after indented code, across blank lines, as if it interrupted
    // a paragraph (`1. ` with nothing after it, `2. two` are paragraph text there, `- 2. x`
    // holds no nested list). The split parsed the block after the code alone: after `2. `
    // (an empty `1. ` before it), `word ` appended to the list read as the whole text reads,
    // and the parse of the last two blocks alone made one list of both; `z` was appended to a
    // paragraph `2. two…` after the code, which the last block parsed alone made a list item.
    // And appendItems parsed a list's first item after the code alone: a nested list.
    for (const chunks of [
      ['\t', 'word ', '\n1. \n\n2. ', 'word '],
      ['intro\n\n\t- tab\n2. two `x`\nla', 'z'],
      ['i', 'ntro\n\n\t- tab\n2. two `x`\nl', 'az'],
      ['intro\n\n    code\n\n- 2', '. x y', '\n- b'],
    ]) {
      expectStreamedAsWhole(chunks);
    }
  });

  it('splits and draws a list that interrupts a paragraph as the whole text parsed', () => {
    // micromark reads the first line of a list or a quote that interrupts a paragraph as under
    // the paragraph: in `1. * `, the `*` is text, not an empty nested list; in `1. 3) x`, `3)`
    // no nested list. The split parsed the last block alone once its first line was whole: a
    // nested list, which appends then grew while a parse of the last two blocks (a `|` in the
    // last) read the text; or a paragraph grown by appendWords where the last block parsed
    // alone was a nested list (found by the random-reply property at 3000 runs).
    for (const chunks of [
      ['word ', '\n1. * \n1. ', '| e ', 'word '],
      ['p', '\n1. 3) x\n', 'more'],
      ['p\n> - ', '\n> x'],
    ]) {
      expectStreamedAsWhole(chunks);
    }
  });

  it('every prefix of the showcase answer splits and draws as the whole prefix parsed at once', () => {
    // The first section of the answer `pnpm bench ui` streams (a heading, paragraphs with
    // spans, lists, a table, a quote, code), one character at a time: every path that grows a
    // tree without a parse.
    const answer = showcaseAnswer(40);
    let before: Blocks | null = null;
    for (let end = 1; end <= answer.length; end++) {
      const text = answer.slice(0, end);
      const grown = splitBlocks(text, before, undefined, grow);
      const whole = splitBlocks(text);
      expect(grown.blocks, JSON.stringify(text.slice(-40))).toEqual(whole.blocks);
      expect(html(grown), JSON.stringify(text.slice(-40))).toBe(html(whole));
      before = grown;
    }
  }, 60_000);

  it('every token of the whole showcase answer splits and draws as its last blocks parsed', () => {
    // As the bench streams it, a word and its spaces at a time, to its 20,000 characters.
    expectGrownAsParsed(answerTokens(showcaseAnswer(20_000)));
  }, 60_000);

  it('lengthens the last text of a table cell, a list item and a heading', () => {
    for (const [before, appended, shown] of [
      ['| a | b |\n| - | - |\n| 1 | tw', 'o three', '<td>two three</td>'],
      ['- one\n- tw', 'o, three', '<li>two, three</li>'],
      ['## Tit', 'le ', '<h2>Title</h2>'],
    ] as const) {
      const tree = appendWords(parseMarkdown(before), 0, before, appended);
      expect(tree).not.toBeNull();
      expect(renderToStaticMarkup(<div>{renderRoot(tree!, renderers)}</div>)).toContain(shown);
    }
  });

  it('parses a table row being written alone under its header, not the whole table', () => {
    const before = '| a | b |\n|:-|--:|\n| 1 | 2 |\n| 3 | fo';
    const grown = appendRows(parseMarkdown(before), 0, before, 'ur |\n| **5** | 6');
    expect(grown).not.toBeNull();
    expect(renderToStaticMarkup(<div>{renderRoot(grown!, renderers)}</div>)).toBe(
      renderToStaticMarkup(
        <div>{renderRoot(parseMarkdown(`${before}ur |\n| **5** | 6`), renderers)}</div>,
      ),
    );
    // A blank line ends the table: what follows is parsed.
    expect(appendRows(parseMarkdown(`${before}\n\n`), 0, `${before}\n\n`, '| x |')).toBeNull();
  });

  it('grows a tight list by its last item, parsed alone', () => {
    for (const [before, appended] of [
      ['1. one\n2. two\n', '3. '],
      ['1. ', '3) word'],
      ['7. a', '\n8. b'],
      ['- a\n- b', ' c'],
      ['1. one\n2. two\n3. ', 'The'],
      ['- a\n- b `c', '` d'],
      ['- a\n- b\n  ', 'more'],
      ['4. a\n5. b', '\n6. **c**'],
    ] as const) {
      const tree = appendItems(parseMarkdown(before), 0, before, appended);
      expect(tree, before + appended).not.toBeNull();
      expect(renderToStaticMarkup(<div>{renderRoot(tree!, renderers)}</div>)).toBe(
        renderToStaticMarkup(<div>{renderRoot(parseMarkdown(before + appended), renderers)}</div>),
      );
    }
    for (const [before, appended] of [
      // A blank line (loose items), another kind of item, a thematic break, a definition,
      // a reference to a definition in an item before, a loose list.
      ['- a\n- b\n', '\n- c'],
      ['- a\n- b\n', '* c'],
      ['- a\n', '- - -'],
      ['- a\n', '- [r]: https://x.y'],
      ['- [r]: https://x.y\n', '- [r]'],
      ['- a\n\n- b\n', '- c'],
      ['- a\n', '# h'],
    ] as const) {
      expect(appendItems(parseMarkdown(before), 0, before, appended), before + appended).toBeNull();
    }
    // A list that interrupts a paragraph (its first line reads otherwise there: `1. 3) x` is
    // no nested list), its tree parsed with the paragraph.
    const under = 'p\n1. a';
    const list = parseMarkdown(under).children[1]!;
    expect(list.type).toBe('list');
    expect(appendItems({ type: 'root', children: [list] }, 0, under, '\n2. b')).toBeNull();
  });

  it("continues a quote's paragraph on its next line", () => {
    const before = '> A quote\n';
    const marker = appendQuoteLine(parseMarkdown(before), 0, before, '> ');
    expect(marker).not.toBeNull();
    const words = appendQuoteLine(marker!, 0, `${before}> `, 'goes on ');
    expect(words).not.toBeNull();
    expect(renderToStaticMarkup(<div>{renderRoot(words!, renderers)}</div>)).toBe(
      '<div><blockquote><p>A quote\ngoes on</p></blockquote></div>',
    );
    // Markup, a hard break before, a nested quote: parsed.
    expect(appendQuoteLine(marker!, 0, `${before}> `, '**b**')).toBeNull();
    expect(appendQuoteLine(parseMarkdown('> a  \n'), 0, '> a  \n', '> ')).toBeNull();
    expect(appendQuoteLine(parseMarkdown('> a\n'), 0, '> a\n', '> > ')).toBeNull();
  });

  it.each([
    // Markup in the words, or words that complete what came before.
    ['para', ' **b'],
    ['see http', '.'],
    ['see www', '.a'],
    ['[d]: ', 'h'],
    ['text\n1.', ' one'],
    ['x **b**', 'old'],
    ['<di', 'v'],
    ['&amp', ';'],
    ['a', '\nb'],
    ['| a | b |\n| - | - |\n| 1 | ', '2'],
    ['```\ncode', ' more'],
  ])('%j + %j is parsed', (before, appended) => {
    expect(appendWords(parseMarkdown(before), 0, before, appended)).toBeNull();
  });
});
