import remend from 'remend';

/**
 * The block being written, completed for display, so that no raw syntax shows while a reply
 * streams: what it will become is drawn as soon as its first characters say so.
 *
 * - A table shows from the first `|` of its header: the delimiter row the parser needs before
 *   it calls the lines a table (`| --- | --- |`) is written for it, to the header's cells so
 *   far, until the model's own is whole. Without this, `| what breaks | what you see |` showed
 *   as text for ~550 ms (the header row and the delimiter row take 30 tokens).
 * - A line holding only a list marker (`-`, `1.`) waits for its first word: alone under a
 *   paragraph line it reads as that paragraph's text (`1.`) or a setext underline (`-`).
 * - Inline syntax (`**bo`, `` `co ``, `~~x`, a half-typed `[link](ht`) is completed by remend,
 *   the healer streamdown uses; `text-only` drops a half-typed link's markup instead of
 *   pointing it at a placeholder URL.
 * - Code (a fence, indented code) is shown as it comes.
 *
 * Only the last block of a streaming reply goes through here; the complete reply renders
 * exactly as written.
 */
export function completeForDisplay(block: string): string {
  // Code is shown as it comes (remend would add a zero-width space after a `-` line in it).
  if (CODE_START.test(block)) return block;
  return remend(completeTable(withoutBareMarker(block)), { linkMode: 'text-only' });
}

/** A fence or indented code: its lines are code, never completed. */
export const CODE_START = /^(?: {0,3}(?:```|~~~)| {4}|\t)/;
/** A last line that is a list marker with nothing after it yet. */
const BARE_MARKER = /(?:^|\n)[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]*$/;
/** A table row as models write them: a `|` first (after at most 3 spaces). */
const ROW = /^ {0,3}\|/;
/** What a delimiter row can hold, whole or partly written. */
const DELIMITER_CHARS = /^ {0,3}[|:\- \t]*$/;
const DELIMITER_CELL = /^[ \t]*:?-+:?[ \t]*$/;

function withoutBareMarker(block: string): string {
  const marker = BARE_MARKER.exec(block);
  return marker ? block.slice(0, marker.index) : block;
}

/** The cells of a table row (a pipe at either end is a border, not an empty cell). */
function cells(row: string): string[] {
  // An escaped pipe is a cell's text (no lookbehind: older Safari cannot parse one).
  const parts = row.replace(/\\\|/g, '').trim().split('|');
  if (parts[0]?.trim() === '') parts.shift();
  if (parts.length > 0 && parts[parts.length - 1]!.trim() === '') parts.pop();
  return parts;
}

function completeTable(block: string): string {
  const body = block.replace(/\s+$/, '');
  const lines = body.split(/\r\n?|\n/);
  // The rows the block ends with: one (a header being written) or two (a header and its
  // delimiter row being written) may need completing; past that the parser has decided.
  let first = lines.length;
  while (first > 0 && ROW.test(lines[first - 1]!)) first--;
  const rows = lines.length - first;
  if (rows === 0 || rows > 2) return block;
  const header = lines[first]!;
  const columns = cells(header).length;
  const before = lines.slice(0, first);
  if (rows === 2) {
    const delimiter = lines[first + 1]!;
    if (!DELIMITER_CHARS.test(delimiter)) return block;
    const written = cells(delimiter);
    // Whole: as many cells as the header, each a run of dashes.
    if (written.length === columns && written.every((cell) => DELIMITER_CELL.test(cell)))
      return block;
  }
  // `|` alone says a table is coming but not its first cell: nothing to show yet.
  if (columns === 0) return before.join('\n');
  return [...before, header, `|${' --- |'.repeat(columns)}`].join('\n');
}
