import { completeForDisplay } from './markdown-complete.js';
import { type Blocks, type Grow, splitBlocks } from './markdown-split.js';

/**
 * A short reply holding each kind of block a model writes: a heading, a paragraph with every
 * inline span, a numbered and a bulleted list, a table, a code fence and a quote. One string
 * per idle step.
 */
const SAMPLE = [
  'Some words.\n',
  '# A heading\n\nSome **strong**, *emphasis* and `code`.\n\n',
  '~~Struck~~, a [link](https://example.com/a) and www.example.com.\n\n',
  '1. The first `item`\n2. The **second** one\n\n- A bullet\n- Another one\n\n',
  '| what | why |\n| --- | --- |\n| `a` | **b** |\n| c | d |\n\n',
  '```ts\nconst a = 1;\n```\n\n> A quote that\n> goes on.\n',
];

/** A word with the spaces after it, or line breaks: how tokens of a reply arrive. */
const TOKENS = /\S+[ \t]*|\n+/g;

const onIdle: (run: () => void) => unknown =
  globalThis.requestIdleCallback ?? ((run: () => void) => setTimeout(run, 1));

let warmed = false;

/**
 * Streams the sample through `splitBlocks` with `grow` (the appends) once, token by token,
 * each last block completed for display as `<Markdown>` draws it, at idle: one kind of block
 * per idle callback, so no step is a long task (at most ~30 ms, CPU throttled 4×).
 *
 * Why: the first reply's first tokens paid for compiling the parser, its GFM extensions, the
 * healer (remend) and the appends, since V8 compiles a function when it first runs: a 55–76 ms
 * long task at the send (Chromium, CPU throttled 4×), before any text showed. Run here, ahead
 * of need, that cost falls in idle time. Once per page.
 */
export function warmUp(grow: Grow): void {
  if (warmed) return;
  warmed = true;
  const steps = SAMPLE.map((sample) => () => {
    let before: Blocks | null = null;
    let text = '';
    for (const token of sample.match(TOKENS) ?? []) {
      text += token;
      before = splitBlocks(text, before, undefined, grow);
      completeForDisplay(before.blocks[before.blocks.length - 1] ?? '');
    }
  });
  const next = () => {
    steps.shift()?.();
    if (steps.length > 0) onIdle(next);
  };
  onIdle(next);
}
