// Its own module: the lazily loaded approval card shares it without sharing the tool call.
import { memo } from 'react';

/** Past this many characters indented JSON is not built: the text is kept as it came. */
const LIMIT = 1e6;

/**
 * Indented JSON when the text parses, else the text as it came. Indenting grows with the
 * square of the nesting (6 KB of `[[[…]]]` would become 18 MB), so the indented length is
 * counted first, without building anything, and the count stops once past a million.
 */
export function prettyJson(text: string): string {
  // (Blank text does not parse either: it comes back as it was.)
  try {
    const value: unknown = JSON.parse(text);
    return indentedLength(value) > LIMIT ? text : JSON.stringify(value, null, 2);
  } catch {
    return text;
  }
}

/**
 * The length of `JSON.stringify(value, null, 2)`, or a figure past LIMIT once it is clear it
 * would be longer. Iterative: nesting past the engine's stack is only counted. A container
 * at depth d with k entries costs its brackets, a line and 2(d+1) spaces per entry, the
 * commas between them, and a line and 2d spaces before its closing bracket.
 */
function indentedLength(value: unknown): number {
  let n = 0;
  const stack: [unknown, number][] = [[value, 0]];
  for (let top = stack.pop(); top && n <= LIMIT; top = stack.pop()) {
    const [v, d] = top;
    if (v === null || typeof v !== 'object') {
      n += JSON.stringify(v).length;
      continue;
    }
    const keys = Object.keys(v);
    n += 2;
    if (keys.length > 0) n += keys.length * (2 * d + 4) + 2 * d;
    for (const key of keys) {
      // An object's key and its `": "`.
      if (!Array.isArray(v)) n += JSON.stringify(key).length + 2;
      stack.push([(v as Record<string, unknown>)[key], d + 1]);
    }
  }
  return n;
}

/** prettyJson as an element: indented again only when the text changes. */
export const PrettyJson = memo(function PrettyJson({ text }: { text: string }) {
  return prettyJson(text);
});
