import fc from 'fast-check';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { answerTokens, showcaseAnswer } from '../../../bench/lib/showcase-answer.js';
import { DEFAULT_LABELS } from './labels.js';
import { type Blocks, type CodeRenderer, makeRenderers, splitBlocks } from './markdown.js';
import * as grow from './markdown-append.js';
import { appendRows, appendWords } from './markdown-append.js';
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
];

describe('appendWords: words appended without a parse', () => {
  it('every token of a random reply splits and draws as a parse would', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 3 }), {
          minLength: 1,
          maxLength: 40,
        }),
        (tokens) => {
          let before: Blocks | null = null;
          let text = '';
          for (const token of tokens) {
            text += token.join('');
            const appended = splitBlocks(text, before, undefined, grow);
            // The same split with nothing to grow the tree: the last blocks parsed again.
            const parsed = splitBlocks(text, before);
            expect(appended.blocks).toEqual(parsed.blocks);
            expect(html(appended)).toBe(html(parsed));
            before = appended;
          }
        },
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
        (rows, end, cuts) => {
          const doc = `intro\n\n| h1 | h2 |\n|:--|--:|\n${rows.join('\n')}${end}`;
          let before: Blocks | null = null;
          let at = 0;
          for (let i = 0; at < doc.length; i++) {
            at = Math.min(doc.length, at + cuts[i % cuts.length]!);
            const text = doc.slice(0, at);
            const appended = splitBlocks(text, before, undefined, grow);
            const parsed = splitBlocks(text, before);
            expect(appended.blocks).toEqual(parsed.blocks);
            expect(html(appended)).toBe(html(parsed));
            before = appended;
          }
        },
      ),
      { numRuns: 80 },
    );
  }, 60_000);

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
    const tokens = answerTokens(showcaseAnswer(20_000));
    let before: Blocks | null = null;
    let text = '';
    for (const token of tokens) {
      text += token;
      const grown = splitBlocks(text, before, undefined, grow);
      const parsed = splitBlocks(text, before);
      expect(grown.blocks).toEqual(parsed.blocks);
      expect(html(grown), JSON.stringify(text.slice(-40))).toBe(html(parsed));
      before = grown;
    }
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

  it.each([
    // Markup in the words, or words that complete what came before.
    ['para', ' **b'],
    ['para', '.'],
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
