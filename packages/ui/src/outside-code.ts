// Its own chunk (markdown-guard.ts `codeChunk`): only text packed with markup needs it.
/**
 * The text without the lines of its code blocks, in one pass over the lines. It must never
 * take for code what the parser reads as Markdown (a line left in only counts more), so it
 * knows only the code blocks that are surely the document's own: a fence that starts its line
 * (none in a list item or a quote), and indented code after a blank line once no list item
 * or footnote can be open (an indented line there is their content). A line that may start
 * raw HTML (in which a fence is text) ends the skipping: the rest counts whole.
 */
export function outsideCode(text: string): string {
  const lines = text.split(/\r\n?|\n/);
  const out: string[] = [];
  // The open fence (```, ~~~~…), '' when none.
  let fence = '';
  // Its lines count (an indented fence).
  let counted = false;
  let indented = false;
  // A list item or footnote may still be open.
  let container = false;
  let blank = true;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const isBlank = /^[ \t]*$/.test(line);
    if (fence) {
      // Closed as the parser closes it: up to 3 spaces, the fence's character at least as
      // many times, nothing after but spaces.
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line)?.[1];
      if (close && close[0] === fence[0] && close.length >= fence.length) fence = '';
      if (counted) out.push(line);
      continue;
    }
    if (indented && (isBlank || /^(?: {4}| {0,3}\t)/.test(line))) continue;
    indented = false;
    if (/^[ \t>*+\-.)\d]*</.test(line)) return out.concat(lines.slice(i)).join('\n');
    // A fence opens after up to 3 spaces (CommonMark). One indented at all could belong to a
    // list item, which a later unindented line ends (and the fence with it): it is known
    // only to find its closing line (not to take that for an opening one) and only where
    // no list item can be open, and its lines still count.
    const open = /^( {0,3})(`{3,}|~{3,})(.*)/s.exec(line);
    if (open && !(open[2]![0] === '`' && open[3]!.includes('`')) && (!open[1] || !container)) {
      fence = open[2]!;
      counted = open[1] !== '';
    } else if (blank && !container && /^(?: {4}| {0,3}\t)/.test(line)) {
      indented = true;
      continue;
    }
    if (/^[ \t>]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)|^[ \t>]*\[\^/.test(line)) container = true;
    else if (blank && !isBlank && /^[^ \t]/.test(line)) container = false;
    blank = isBlank;
    out.push(line);
  }
  return out.join('\n');
}
