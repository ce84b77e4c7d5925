import { chunk, useChunk } from './lazy-chunk.js';
import type { MessageEditorProps } from './message-editor.js';

export type { MessageEditorProps };

/**
 * The inline editor's chunk, fetched when a prompt that can be edited shows its tools
 * (hover, focus) or on Edit: a transcript that is only read never loads it.
 */
export const editorChunk = chunk(() => import('./message-editor.js'));

/** `<MessageEditor>`, loaded on first use: nothing until its chunk is there (it opens on a click). */
export function MessageEditor(props: MessageEditorProps) {
  const loaded = useChunk(editorChunk);
  return loaded ? <loaded.MessageEditor {...props} /> : null;
}
