import fc from 'fast-check';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LABELS } from './labels.js';
import { type Blocks, type CodeRenderer, makeRenderers, splitBlocks } from './markdown.js';
import { appendWords } from './markdown-append.js';
import { parseMarkdown, renderRoot } from './mdast-react.js';

const renderCode: CodeRenderer = (code) => code;
const renderers = makeRenderers(DEFAULT_LABELS, undefined, renderCode);
const html = (blocks: Blocks) =>
  blocks.lastTree
    ? renderToStaticMarkup(<div>{renderRoot(blocks.lastTree, renderers)}</div>)
    : null;

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
            const appended = splitBlocks(text, before);
            // The same split with no tree to extend: the last blocks parsed again.
            const parsed = splitBlocks(text, before && { ...before, lastTree: undefined });
            expect(appended.blocks).toEqual(parsed.blocks);
            expect(html(appended)).toBe(html(parsed));
            before = appended;
          }
        },
      ),
      { numRuns: 200 },
    );
  });

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
