import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import type { ChatLabels } from './labels.js';

/** Props of {@link MessageEditor}: the prompt's text and what Save and Cancel do. */
export interface MessageEditorProps {
  /** The prompt's text as sent. */
  initial: string;
  /** Called with the trimmed new text (never empty). */
  onSave: (text: string) => void;
  /** Called by Cancel or Esc: close the editor, the prompt unchanged. */
  onCancel: () => void;
  /**
   * Its words, whole (`useLabels()` merges a partial set): `editInput` (the text box's
   * name), `cancelEdit` and `saveEdit`.
   */
  labels: ChatLabels;
}

/**
 * The inline editor of a prompt: its text in a labelled box, Cancel and Save. Esc cancels
 * (and is kept from the chat's Esc-to-stop); Ctrl/Cmd+Enter saves. Focus starts in the box.
 */
export function MessageEditor({ initial, onSave, onCancel, labels }: MessageEditorProps) {
  const [text, setText] = useState(initial);
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  const save = () => {
    const trimmed = text.trim();
    if (trimmed !== '') onSave(trimmed);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onCancel();
    } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      save();
    }
  };
  return (
    <form
      className="rc-editor"
      data-part="editor"
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <textarea
        ref={box}
        className="rc-editor__input"
        aria-label={labels.editInput}
        value={text}
        rows={Math.min(8, Math.max(2, text.split('\n').length))}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="rc-editor__buttons">
        <button type="button" className="rc-button rc-button--ghost" onClick={onCancel}>
          {labels.cancelEdit}
        </button>
        <button type="submit" className="rc-button rc-editor__save" disabled={text.trim() === ''}>
          {labels.saveEdit}
        </button>
      </div>
    </form>
  );
}
