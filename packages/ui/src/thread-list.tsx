// `@resumable/ui/thread-list`: its own entry, out of a one-conversation page's bundle.
'use client';

import type { ThreadEntry, ThreadsController } from '@resumable/hooks/threads';
import { type FormEvent, type KeyboardEvent, useRef, useState } from 'react';
import { ActionButton } from './action-button.js';
import { type ThreadListLabels, useMergedLabels } from './attachment-labels.js';
import { isolateName } from './bidi-name.js';
import { cx } from './cx.js';
import { errorWords } from './error-words.js';

export const DEFAULT_THREAD_LIST_LABELS: ThreadListLabels = {
  threadList: 'Conversations',
  newThread: 'New conversation',
  untitled: 'New conversation',
  renameThread: (title) => `Rename ${title}`,
  deleteThread: (title) => `Delete ${title}`,
  threadTitle: 'Conversation title',
  save: 'Save',
  cancel: 'Cancel',
  confirmDelete: (title) => `Delete “${title}” and its messages and files?`,
  confirmDeleteButton: 'Delete',
};

export interface ThreadListProps {
  /** What `useThreads()` (from `@resumable/hooks/threads`) returns. */
  threads: ThreadsController;
  /** The conversation shown beside the list (`aria-current`). @default null */
  currentId?: string | null;
  /** A conversation was picked (click, Enter or Space on it). */
  onSelect: (id: string) => void;
  /** After "New conversation" made an entry. @default onSelect(id) */
  onCreate?: (id: string) => void;
  /** After a conversation was deleted (pick another when it was the current one). */
  onRemoved?: (id: string) => void;
  labels?: Partial<ThreadListLabels>;
  className?: string;
}

type Mode = { kind: 'idle' } | { kind: 'renaming'; id: string } | { kind: 'deleting'; id: string };

/**
 * The conversations, newest first, with new / rename / delete. Arrow keys, Home and End
 * move between conversations; F2 renames the focused one and Delete asks to delete it.
 * Every button is labelled with the conversation it acts on.
 */
export function ThreadList({
  threads,
  currentId = null,
  onSelect,
  onCreate,
  onRemoved,
  labels: labelsProp,
  className,
}: ThreadListProps) {
  const labels = useMergedLabels(DEFAULT_THREAD_LIST_LABELS, labelsProp);
  const [mode, setMode] = useState<Mode>({ kind: 'idle' });
  const list = useRef<HTMLUListElement>(null);
  const titleOf = (t: ThreadEntry) => t.title ?? labels.untitled;

  // After a rename or a cancelled delete, focus goes back to the conversation's button.
  const focusOpen = (id: string) =>
    requestAnimationFrame(() => {
      const buttons = list.current?.querySelectorAll<HTMLButtonElement>('.rc-threads__open');
      for (const b of buttons ?? []) if (b.dataset.threadId === id) b.focus();
    });

  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>) => {
    const buttons = Array.from(
      list.current?.querySelectorAll<HTMLButtonElement>('.rc-threads__open') ?? [],
    );
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (at < 0) return;
    const id = buttons[at]!.dataset.threadId!;
    const move = (to: number) => {
      e.preventDefault();
      buttons[Math.max(0, Math.min(buttons.length - 1, to))]?.focus();
    };
    if (e.key === 'ArrowDown') move(at + 1);
    else if (e.key === 'ArrowUp') move(at - 1);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(buttons.length - 1);
    else if (e.key === 'F2') {
      e.preventDefault();
      setMode({ kind: 'renaming', id });
    } else if (e.key === 'Delete') {
      e.preventDefault();
      setMode({ kind: 'deleting', id });
    }
  };

  const create = async () => {
    const id = await threads.create();
    (onCreate ?? onSelect)(id);
  };

  return (
    <nav className={cx('rc-threads', className)} aria-label={labels.threadList}>
      <button type="button" className="rc-threads__new" onClick={() => void create()}>
        {labels.newThread}
      </button>
      <ul className="rc-threads__list" ref={list} onKeyDown={onKeyDown}>
        {threads.threads.map((t) => (
          <li
            key={t.id}
            className="rc-threads__item"
            data-current={t.id === currentId || undefined}
          >
            {mode.kind === 'renaming' && mode.id === t.id ? (
              <RenameForm
                initial={t.title ?? ''}
                labels={labels}
                onDone={(title) => {
                  setMode({ kind: 'idle' });
                  if (title !== null) void threads.rename(t.id, title).catch(() => {});
                  focusOpen(t.id);
                }}
              />
            ) : mode.kind === 'deleting' && mode.id === t.id ? (
              // biome-ignore lint/a11y/useSemanticElements: a group of two buttons, not a form field set
              <div
                className="rc-threads__confirm"
                role="group"
                aria-label={labels.confirmDelete(titleOf(t))}
              >
                <span>{isolateName(labels.confirmDelete, titleOf(t))}</span>
                <button
                  type="button"
                  className="rc-threads__danger"
                  onClick={() => {
                    setMode({ kind: 'idle' });
                    void threads.remove(t.id).then(
                      () => onRemoved?.(t.id),
                      () => focusOpen(t.id),
                    );
                  }}
                >
                  {labels.confirmDeleteButton}
                </button>
                <button
                  type="button"
                  // biome-ignore lint/a11y/noAutofocus: the safe choice takes focus when asked to confirm
                  autoFocus
                  onClick={() => {
                    setMode({ kind: 'idle' });
                    focusOpen(t.id);
                  }}
                >
                  {labels.cancel}
                </button>
              </div>
            ) : (
              <>
                <button
                  type="button"
                  className="rc-threads__open"
                  data-thread-id={t.id}
                  aria-current={t.id === currentId ? 'page' : undefined}
                  onClick={() => onSelect(t.id)}
                >
                  {titleOf(t)}
                </button>
                <ActionButton
                  className="rc-threads__action"
                  label={labels.renameThread(titleOf(t))}
                  onClick={() => setMode({ kind: 'renaming', id: t.id })}
                >
                  ✎
                </ActionButton>
                <ActionButton
                  className="rc-threads__action"
                  label={labels.deleteThread(titleOf(t))}
                  onClick={() => setMode({ kind: 'deleting', id: t.id })}
                >
                  ×
                </ActionButton>
              </>
            )}
          </li>
        ))}
      </ul>
      {threads.error ? (
        <p className="rc-threads__error" role="alert">
          {errorWords(threads.error.code)}
        </p>
      ) : null}
    </nav>
  );
}

function RenameForm({
  initial,
  labels,
  onDone,
}: {
  initial: string;
  labels: ThreadListLabels;
  /** The new title, or null when cancelled. */
  onDone: (title: string | null) => void;
}) {
  const [value, setValue] = useState(initial);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onDone(value.trim() === '' ? null : value.trim());
  };
  return (
    <form className="rc-threads__rename" onSubmit={submit}>
      <input
        aria-label={labels.threadTitle}
        value={value}
        // biome-ignore lint/a11y/noAutofocus: the field the user just asked for
        autoFocus
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            onDone(null);
          }
        }}
      />
      <button type="submit">{labels.save}</button>
      <button type="button" onClick={() => onDone(null)}>
        {labels.cancel}
      </button>
    </form>
  );
}
