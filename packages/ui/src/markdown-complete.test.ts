import { describe, expect, it } from 'vitest';
import { completeForDisplay } from './markdown-complete.js';

describe('completeForDisplay: the block being written, as it will read', () => {
  it.each([
    // A table from its header's first cell, to the cells written so far.
    ['| what br', '| what br\n| --- |'],
    ['| what breaks | what you', '| what breaks | what you\n| --- | --- |'],
    ['| what breaks | what you see |\n', '| what breaks | what you see |\n| --- | --- |'],
    // Its delimiter row being written is replaced by a whole one.
    ['| a | b | c |\n| ---', '| a | b | c |\n| --- | --- | --- |'],
    ['| a | b | c |\n| --- | --- |', '| a | b | c |\n| --- | --- | --- |'],
    ['| a | b |\n|', '| a | b |\n| --- | --- |'],
    // After a paragraph line (a table interrupts a paragraph).
    ['intro\n| a | b', 'intro\n| a | b\n| --- | --- |'],
    // An escaped pipe is a cell's text, not a border.
    ['| a \\| b | c', '| a \\| b | c\n| --- | --- |'],
    // `|` alone: a table is coming, nothing to show yet.
    ['intro\n|', 'intro'],
    ['|', ''],
  ])('%j → %j', (block, shown) => {
    expect(completeForDisplay(block)).toBe(shown);
  });

  it.each([
    // A whole delimiter row: the parser has decided; the rows are rows.
    '| a | b |\n| --- | -',
    '| a | b |\n|:--|--:|\n| 1 | 2',
    '| a | b |\n| --- | --- |\n| reload | the ans',
    // Three `|` lines with no delimiter row under the first: not a table.
    '| a |\n| b |\n| c |',
    // Code: never completed.
    '```md\n| a | b |',
    '    | a | b |',
  ])('%j stays as it is', (block) => {
    expect(completeForDisplay(block)).toBe(block);
  });

  it.each([
    // A list marker waits for its first word (under a paragraph it reads as text or a
    // setext underline).
    ['text\n-', 'text'],
    ['text\n1.', 'text'],
    ['- a\n- ', '- a'],
    ['1. one\n2)', '1. one'],
    // Inline syntax, by remend; a half-typed link shows its text.
    ['Hello **bo', 'Hello **bo**'],
    ['a `co', 'a `co`'],
    ['see [the docs](https://exa', 'see the docs'],
    ['A ~~del', 'A ~~del~~'],
  ])('%j → %j', (block, shown) => {
    expect(completeForDisplay(block)).toBe(shown);
  });

  it('leaves a code block being written as it is, list markers too', () => {
    expect(completeForDisplay('```yaml\nitems:\n  -')).toBe('```yaml\nitems:\n  -');
  });
});
