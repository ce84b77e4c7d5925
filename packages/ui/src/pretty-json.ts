// Its own module: the lazily loaded approval card shares it without sharing the tool call.
/**
 * Indented JSON when the text parses, else the text as it came. Indenting grows with the
 * square of the nesting (6 KB of `[[[…]]]` became 18 MB): past a million characters the
 * text is kept as it came.
 */
export function prettyJson(text: string): string {
  // (Blank text does not parse either: it comes back as it was.)
  try {
    const pretty = JSON.stringify(JSON.parse(text), null, 2);
    return pretty.length > 1e6 ? text : pretty;
  } catch {
    return text;
  }
}
