// `@resumable/ui/thread-list`: its own entry, out of a one-conversation page's bundle.
'use client';

import type { ThreadEntry, ThreadsController } from '@resumable/hooks/threads';
import { type FormEvent, type KeyboardEvent, useRef, useState } from 'react';
import { ActionButton } from './action-button.js';
import type { ThreadListLabels } from './attachment-labels.js';
import { isolateName } from './bidi-name.js';
import { cx } from './cx.js';
import { errorWords } from './error-words.js';
import { useMergedLabels } from './labels.js';

// Named here too: a caller types its `labels` (or a translation) without a second import.
export type { ThreadListLabels } from './attachment-labels.js';

/**
 * The English words of every {@link ThreadListLabels} key: what a key left out of
 * `<ThreadList labels>` falls back to.
 */
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

/** Props of {@link ThreadList}: the conversations, the current one, and what a pick does. */
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
  /** Overrides of the list's words; what is left out keeps `DEFAULT_THREAD_LIST_LABELS`. */
  labels?: Partial<ThreadListLabels>;
  /** Class names added to the list's `<nav>` (which always has `rc-threads`). */
  className?: string;
}

type Mode = { kind: 'idle' } | { kind: 'renaming'; id: string } | { kind: 'deleting'; id: string };

/**
 * A conversation is listed once it has something in it: its first prompt named it (or a
 * rename did), or it is a server thread (joined by link, or made by an upload). Before
 * that it is a draft: it can be shown, it is not listed.
 */
export function isListed(entry: ThreadEntry): boolean {
  return entry.title !== null || entry.threadId !== null;
}

/**
 * The conversations, newest first, with new / rename / delete. A draft (nothing sent yet)
 * is not listed, and "New conversation" reuses it rather than make another. Each
 * conversation is one Tab stop, its title at the list's full width (the full title as its
 * tooltip, and wrapped while it has keyboard focus); ↑ ↓ Home End move between
 * conversations, → ← to and from its Rename and Delete buttons (shown on hover and focus);
 * F2 renames the focused one and Delete asks to delete it. Every button is labelled with
 * the conversation it acts on.
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
    const rows = Array.from(list.current?.children ?? []).map((item) =>
      Array.from(item.querySelectorAll<HTMLButtonElement>(':scope > button')),
    );
    const row = rows.findIndex((buttons) => buttons.includes(e.target as HTMLButtonElement));
    if (row < 0) return;
    const buttons = rows[row]!;
    const column = buttons.indexOf(e.target as HTMLButtonElement);
    const id = buttons[0]?.dataset.threadId;
    if (id === undefined) return;
    const focus = (to: HTMLButtonElement | undefined) => {
      e.preventDefault();
      to?.focus();
    };
    // Up and down go to a conversation (its title); right and left along its buttons.
    const open = (to: number) => focus(rows[Math.max(0, Math.min(rows.length - 1, to))]?.[0]);
    if (e.key === 'ArrowDown') open(row + 1);
    else if (e.key === 'ArrowUp') open(row - 1);
    else if (e.key === 'Home') open(0);
    else if (e.key === 'End') open(rows.length - 1);
    else if (e.key === 'ArrowRight') focus(buttons[Math.min(buttons.length - 1, column + 1)]);
    else if (e.key === 'ArrowLeft') focus(buttons[Math.max(0, column - 1)]);
    else if (e.key === 'F2') {
      e.preventDefault();
      setMode({ kind: 'renaming', id });
    } else if (e.key === 'Delete') {
      e.preventDefault();
      setMode({ kind: 'deleting', id });
    }
  };

  const create = async () => {
    // A draft already waits (nothing sent in it yet): that one, not another.
    const draft = threads.threads.find((t) => !isListed(t));
    const id = draft ? draft.id : await threads.create();
    (onCreate ?? onSelect)(id);
  };

  return (
    <nav className={cx('rc-threads', className)} aria-label={labels.threadList}>
      <button type="button" className="rc-threads__new" onClick={() => void create()}>
        {labels.newThread}
      </button>
      <ul className="rc-threads__list" ref={list} onKeyDown={onKeyDown}>
        {threads.threads.filter(isListed).map((t) => (
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
                  aria-keyshortcuts="F2 Delete"
                  // The whole title, however narrow the list cuts it.
                  title={titleOf(t)}
                  onClick={() => onSelect(t.id)}
                >
                  {titleOf(t)}
                </button>
                <ActionButton
                  className="rc-threads__action"
                  label={labels.renameThread(titleOf(t))}
                  tabIndex={-1}
                  onClick={() => setMode({ kind: 'renaming', id: t.id })}
                >
                  ✎
                </ActionButton>
                <ActionButton
                  className="rc-threads__action"
                  label={labels.deleteThread(titleOf(t))}
                  tabIndex={-1}
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
