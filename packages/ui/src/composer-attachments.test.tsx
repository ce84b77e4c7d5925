import type { Attachment, UploadOptions } from '@resumable/hooks';
import { type AttachmentLimits, useAttachments } from '@resumable/hooks/attachments';
import { ResumableError } from '@resumable/protocol';
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Composer } from './composer.js';
import { trayChunk } from './lazy-tray.js';

/** One upload the test answers by hand: progress, success or a typed failure. */
interface PendingUpload {
  file: Blob;
  options: UploadOptions;
  resolve(a: Attachment): void;
  reject(e: unknown): void;
}

function Harness(props: {
  upload: (file: Blob, options?: UploadOptions) => Promise<Attachment>;
  limits: AttachmentLimits | undefined;
  sent: Array<[string, Attachment[] | undefined]>;
}) {
  const files = useAttachments({ upload: props.upload }, props.limits);
  return (
    <Composer
      onSend={(text, attached) => void props.sent.push([text, attached])}
      attachments={files}
    />
  );
}

function setup(limits?: AttachmentLimits) {
  const uploads: PendingUpload[] = [];
  const sent: Array<[string, Attachment[] | undefined]> = [];
  const upload = (file: Blob, options: UploadOptions = {}) =>
    new Promise<Attachment>((resolve, reject) => uploads.push({ file, options, resolve, reject }));
  const utils = render(<Harness upload={upload} limits={limits} sent={sent} />);
  const send = () => screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement;
  const names = () =>
    within(screen.getByRole('list', { name: 'Attachments' }))
      .getAllByRole('listitem')
      .map((li) => li.querySelector('.rc-attachment__name')!.textContent);
  return { ...utils, uploads, sent, send, names, user: userEvent.setup() };
}

const attachment = (name: string, size: number, mimeType = 'text/plain'): Attachment => ({
  fileId: `f-${name}`,
  url: `/api/threads/t1/files/f-${name}`,
  mimeType,
  size,
  name,
});

// jsdom has no object URLs: count what the previews create and revoke.
let created: string[] = [];
let revoked: string[] = [];
beforeEach(() => {
  created = [];
  revoked = [];
  URL.createObjectURL = (() => {
    const url = `blob:test/${created.length + 1}`;
    created.push(url);
    return url;
  }) as typeof URL.createObjectURL;
  URL.revokeObjectURL = (url: string) => void revoked.push(url);
});
afterEach(() => {
  Reflect.deleteProperty(URL, 'createObjectURL');
  Reflect.deleteProperty(URL, 'revokeObjectURL');
});

// The part loads lazily (src/lazy-parts.test.tsx checks that); here it is already there.
beforeAll(() => trayChunk.load());

describe('Composer attachments', () => {
  it('picks files, shows progress, holds Send until uploaded, sends them and clears', async () => {
    const { uploads, sent, send, names, user, container } = setup();
    await user.click(screen.getByRole('button', { name: 'Attach files' }));
    const input = container.querySelector('input[type="file"]') as HTMLInputElement;
    await user.upload(input, [
      new File(['hello'], 'hello.txt', { type: 'text/plain' }),
      new File(['0123456789'], 'notes.md', { type: 'text/markdown' }),
    ]);
    expect(names()).toEqual(['hello.txt', 'notes.md']);
    expect(screen.getByText('5 B')).toBeTruthy();
    expect(screen.getByText('10 B')).toBeTruthy();
    expect(uploads.map((u) => u.options.name)).toEqual(['hello.txt', 'notes.md']);
    expect(send().disabled).toBe(true);
    expect(send().title).toBe('Waiting for the files to upload');

    act(() => uploads[0]!.options.onProgress?.(3, 5));
    expect(screen.getByRole('progressbar', { name: 'Uploading hello.txt: 60%' })).toBeTruthy();
    expect(screen.getByRole('progressbar', { name: 'Uploading notes.md: 0%' })).toBeTruthy();

    await act(async () => uploads[0]!.resolve(attachment('hello.txt', 5)));
    expect(send().disabled).toBe(true);
    await act(async () => uploads[1]!.resolve(attachment('notes.md', 10, 'text/markdown')));
    expect(screen.queryAllByRole('progressbar')).toEqual([]);
    // Files alone may be sent: the text may stay empty.
    expect(send().disabled).toBe(false);
    await user.click(send());
    expect(sent).toEqual([
      ['', [attachment('hello.txt', 5), attachment('notes.md', 10, 'text/markdown')]],
    ]);
    expect(screen.queryByRole('list', { name: 'Attachments' })).toBeNull();
    // The same file can be picked again (the input was cleared).
    expect(input.value).toBe('');
  });

  it('takes a pasted image with a thumbnail, revoked when the file is removed', async () => {
    const { uploads, user, container } = setup();
    const box = screen.getByRole('textbox', { name: 'Message' });
    const shot = new File([new Uint8Array([137, 80, 78, 71])], 'shot.png', { type: 'image/png' });
    fireEvent.paste(box, { clipboardData: { files: [shot], types: ['Files'] } });
    expect(uploads).toHaveLength(1);
    const thumb = container.querySelector('.rc-attachment__thumb') as HTMLImageElement;
    expect(thumb.getAttribute('src')).toBe('blob:test/1');
    expect(revoked).toEqual([]);
    await user.click(screen.getByRole('button', { name: 'Remove shot.png' }));
    expect(screen.queryByRole('list', { name: 'Attachments' })).toBeNull();
    expect(revoked).toEqual(['blob:test/1']);
    // Its upload was aborted, and a late answer changes nothing.
    expect(uploads[0]!.options.signal?.aborted).toBe(true);
    await act(async () => uploads[0]!.resolve(attachment('shot.png', 4, 'image/png')));
    expect(screen.queryByRole('list', { name: 'Attachments' })).toBeNull();
  });

  it('revokes the thumbnails still shown when the composer unmounts; text pastes as text', () => {
    const { unmount } = setup();
    const box = screen.getByRole('textbox', { name: 'Message' });
    const img = new File(['x'], 'a.gif', { type: 'image/gif' });
    fireEvent.paste(box, { clipboardData: { files: [img], types: ['Files'] } });
    // A text paste has no files: the composer leaves it to the textarea.
    const event = fireEvent.paste(box, { clipboardData: { files: [], types: ['text/plain'] } });
    expect(event).toBe(true);
    expect(created).toEqual(['blob:test/1']);
    unmount();
    expect(revoked).toEqual(['blob:test/1']);
  });

  it('takes dropped files and says so while they are dragged over', () => {
    const { names, container } = setup();
    const form = container.querySelector('form')!;
    fireEvent.dragOver(form, { dataTransfer: { types: ['Files'], files: [] } });
    expect(screen.getByText('Drop files to attach')).toBeTruthy();
    const report = new File(['%PDF-1.7'], 'report.pdf', { type: 'application/pdf' });
    fireEvent.drop(form, { dataTransfer: { types: ['Files'], files: [report] } });
    expect(screen.queryByText('Drop files to attach')).toBeNull();
    expect(names()).toEqual(['report.pdf']);
  });

  it('refuses files over the limits before any upload, in plain words', () => {
    const { uploads, names, container } = setup({
      maxFileBytes: 10,
      maxTotalBytes: 15,
      maxFiles: 2,
    });
    const form = container.querySelector('form')!;
    const file = (name: string, size: number) => new File(['x'.repeat(size)], name);
    fireEvent.drop(form, {
      dataTransfer: {
        types: ['Files'],
        files: [
          file('big.bin', 11),
          file('a.txt', 8),
          file('b.txt', 8),
          file('c.txt', 2),
          file('d.txt', 1),
        ],
      },
    });
    expect(names()).toEqual(['a.txt', 'c.txt']);
    expect(uploads.map((u) => u.options.name)).toEqual(['a.txt', 'c.txt']);
    const alert = screen.getByRole('alert');
    expect(
      within(alert)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      'big.bin is too large: files may be at most 10 B.',
      'b.txt was not added: attachments may be at most 15 B together.',
      'd.txt was not added: at most 2 files per message.',
    ]);
    // Each name isolated in <bdi>: an override in one cannot reverse the words after it.
    expect([...alert.querySelectorAll('li > bdi')].map((b) => b.textContent)).toEqual([
      'big.bin',
      'b.txt',
      'd.txt',
    ]);
  });

  it('shows a refused upload as its typed error, keeps Send off, and retries', async () => {
    const { uploads, send, user } = setup();
    const box = screen.getByRole('textbox', { name: 'Message' });
    await user.type(box, 'look');
    const exe = new File(['MZ'], 'tool.exe', { type: 'application/x-msdownload' });
    fireEvent.paste(box, { clipboardData: { files: [exe], types: ['Files'] } });
    await act(async () =>
      uploads[0]!.reject(new ResumableError('unsupported_media_type', 'type not allowed')),
    );
    expect(screen.getByRole('alert').textContent).toBe(
      'tool.exe could not be uploaded: this type of file is not accepted.',
    );
    expect(screen.getByRole('alert').querySelector('bdi')!.textContent).toBe('tool.exe');
    expect(send().disabled).toBe(true);
    await user.click(screen.getByRole('button', { name: 'Retry uploading tool.exe' }));
    expect(uploads).toHaveLength(2);
    expect(screen.queryByRole('alert')).toBeNull();
    await act(async () => uploads[1]!.resolve(attachment('tool.exe', 2)));
    expect(send().disabled).toBe(false);
  });
});
