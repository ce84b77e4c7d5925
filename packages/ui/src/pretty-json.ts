// Its own module: the lazily loaded approval card shares it without sharing the tool call.
/** Indented JSON when the text parses, else the text as it came. */
export function prettyJson(text: string): string {
  if (text.trim() === '') return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
