import { chunk } from './lazy-chunk.js';

/**
 * Markdown the parser must not be given. micromark and the GFM transforms after it recurse
 * once per level of nesting and resolve unmatched delimiters in quadratic time: 10 KB of `>`
 * overflowed the stack (taking the transcript down), 20 KB of `*_*_…` held the main thread
 * for seconds, again on every streamed token. What they all need is markup packed tight:
 * here 300 markup characters or list markers (`- `, `1. `) in a row, each within two
 * characters of the next — nothing a real reply (or this repository's docs and sources,
 * quoted as code) has. Such text is shown as the plain text it is. The characters between
 * exclude every unit's first one, so one pass finds every run. Not
 * caught (each costs a few times plain text, not a crash): `~~` runs, `1)` markers, and
 * lists nested by indentation alone. Code blocks are the parser's plain text: given
 * `outsideCode` (outside-code.ts, fetched the first time text is packed, which ordinary
 * replies never are), what is packed only inside them (an ASCII table, a banner) does not
 * count. Until it is there, packed text is shown as plain text.
 */
export const tooHostileToParse = (
  text: string,
  outsideCode?: ((text: string) => string) | undefined,
): boolean => packed(text) && (!outsideCode || packed(outsideCode(text)));

// One pass: a unit (a markup character, `- ` or `1. `) and up to two characters that start
// none; 300 in a row is packed. (A regex retried from every start inside a run was quadratic.)
const packed = (text: string): boolean => {
  let run = 0;
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    const unit = MARKUP.includes(c)
      ? 1
      : c === '-' && text[i + 1] === ' '
        ? 2
        : /\d/.test(c) && text[i + 1] === '.' && text[i + 2] === ' '
          ? 3
          : 0;
    if (!unit) {
      run = 0;
      i++;
      continue;
    }
    if (++run >= 300) return true;
    i += unit;
    let gap = 0;
    while (gap < 3 && i < text.length && !/[*_<>[\]`\d-]/.test(text[i]!)) {
      gap++;
      i++;
    }
    if (gap > 2) run = 0;
  }
  return false;
};

const MARKUP = '*_<>[]`';

/** The finer check's chunk: which lines are code. */
export const codeChunk = chunk(() => import('./outside-code.js'));
