/**
 * Attachments against the real server (memory store) on 127.0.0.1: upload progress, the
 * limits checked before any upload, the server's 415 as the typed error, and a prompt
 * queued offline that keeps its files across a reload and goes out once.
 */
import { type RunningServer, startServer } from '@resumable/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualSignal, type ManualSignal } from '../src/core/base/env.js';
import { ResumableClient } from '../src/core/client/resumable-client.js';
import { createMemoryStorage, type RecordStorage } from '../src/core/records/storage.js';
import { AttachmentDraft, draftStatus } from '../src/core/uploads/attachment-draft.js';
import {
  createThread,
  type EndpointOptions,
  uploadFile,
  uploadToChat,
} from '../src/upload/index.js';
import { waitFor } from './util.js';

let server: RunningServer;
/** Every `POST /runs` any client of this test sent. */
let runPosts = 0;
const countingFetch: typeof fetch = (input, init) => {
  if (String(input).endsWith('/runs') && init?.method === 'POST') runPosts++;
  return fetch(input, init);
};
const clients: ResumableClient[] = [];

beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory' });
  runPosts = 0;
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
  await server.close();
});

const origin = () => new URL(server.url).origin;

/** `size` bytes that sniff as PNG (the signature, then filler). */
function png(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size).fill(7);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return bytes;
}

function client(storage: RecordStorage, online: ManualSignal): ResumableClient {
  const made = new ResumableClient({
    endpoint: server.url,
    storage,
    backoff: { initialMs: 5, maxMs: 20 },
    onWarning: () => {},
    env: {
      fetch: countingFetch,
      online,
      visible: createManualSignal(true),
      onPageHide: () => () => {},
    },
  });
  clients.push(made);
  return made;
}

describe('uploads against the real server', () => {
  it('reports progress per 64 KiB slice and answers what the server stored', async () => {
    const api = { endpoint: server.url };
    const thread = await createThread(api);
    const progress: Array<[number, number]> = [];
    const file = new Blob([png(200_000)], { type: 'image/png' });
    const attachment = await uploadFile(api, thread, file, {
      name: 'photo.png',
      onProgress: (loaded, total) => progress.push([loaded, total]),
    });
    expect(progress).toEqual([
      [65_536, 200_000],
      [131_072, 200_000],
      [196_608, 200_000],
      [200_000, 200_000],
    ]);
    expect(attachment).toEqual({
      fileId: attachment.fileId,
      url: `/api/threads/${thread.threadId}/files/${attachment.fileId}`,
      mimeType: 'image/png',
      size: 200_000,
      name: 'photo.png',
    });
    // Served back, with the token as `<img src>` passes it, byte for byte.
    const served = await fetch(`${origin()}${attachment.url}?token=${thread.token}`);
    expect([served.status, served.headers.get('content-type')]).toEqual([200, 'image/png']);
    // Compared as one Buffer (a 200,000-item deep equality takes seconds).
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(png(200_000)))).toBe(true);
  });

  it("README's lower level: createThread and uploadFile take the server's endpoint and headers", async () => {
    const sent: string[] = [];
    const recording: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      const path = new URL(String(input)).pathname;
      sent.push(`${init?.method} ${path} ${headers.get('x-app')} ${headers.get('authorization')}`);
      return fetch(input, init);
    };
    const api: EndpointOptions = {
      endpoint: server.url,
      headers: { 'X-App': 'notes' },
      fetch: recording,
    };
    const file = new File([png(100)], 'dot.png', { type: 'image/png' });
    const progress: string[] = [];
    // As the README shows it.
    const thread = await createThread(api); // POST /threads: { threadId, token }
    const attachment = await uploadFile(api, thread, file, {
      onProgress: (loaded, total) => progress.push(`${loaded} of ${total} bytes`),
    });
    expect(attachment).toEqual({
      fileId: attachment.fileId,
      url: `/api/threads/${thread.threadId}/files/${attachment.fileId}`,
      mimeType: 'image/png',
      size: 100,
      name: 'dot.png',
    });
    expect(progress).toEqual(['100 of 100 bytes']);
    expect(sent).toEqual([
      'POST /api/threads notes null',
      `POST /api/threads/${thread.threadId}/files notes Bearer ${thread.token}`,
    ]);
  });

  it('checks the limits before uploading, with exact errors; one thread for the rest', async () => {
    const chat = client(createMemoryStorage(), createManualSignal(true)).chatSession('k');
    const release = chat.retain();
    const draft = new AttachmentDraft((file, options) => uploadToChat(chat, file, options), {
      maxFileBytes: 1000,
      maxTotalBytes: 1500,
      maxFiles: 2,
    });
    const text = (name: string, size: number) =>
      new File(['x'.repeat(size)], name, { type: 'text/plain' });
    const rejected = draft.add([
      new File([png(1001)], 'a.png', { type: 'image/png' }),
      text('b.txt', 800),
      text('c.txt', 800),
      text('d.txt', 100),
      text('e.txt', 1),
    ]);
    expect(rejected.map((r) => [r.name, r.reason, r.limit, r.error.code, r.error.message])).toEqual(
      [
        [
          'a.png',
          'file_too_large',
          1000,
          'payload_too_large',
          'a.png is 1001 B; a file may be at most 1000 B',
        ],
        [
          'c.txt',
          'total_too_large',
          1500,
          'payload_too_large',
          'c.txt would bring the attachments over 1.5 KB in total',
        ],
        [
          'e.txt',
          'too_many_files',
          2,
          'bad_request',
          'e.txt is one file too many; at most 2 files per message',
        ],
      ],
    );
    expect(draftStatus(draft.getState())).toBe('uploading');
    await waitFor(() => draftStatus(draft.getState()) === 'ready', 'both uploads');
    expect(draft.attachments().map((a) => [a.name, a.size, a.mimeType])).toEqual([
      ['b.txt', 800, 'text/plain'],
      ['d.txt', 100, 'text/plain'],
    ]);
    // The chat had no thread: one was made for both files and is the chat's now.
    const { threadId, token } = chat.getState();
    expect(threadId).not.toBeNull();
    expect(draft.attachments().every((a) => a.url.startsWith(`/api/threads/${threadId}/`))).toBe(
      true,
    );
    const thread = await fetch(`${server.url}/threads/${threadId}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(thread.status).toBe(200);
    release();
  });

  it("shows the server's 415 as the typed error, and a retry goes out again", async () => {
    const chat = client(createMemoryStorage(), createManualSignal(true)).chatSession('k');
    const release = chat.retain();
    const draft = new AttachmentDraft((file, options) => uploadToChat(chat, file, options));
    const exe = new File([new Uint8Array([0x4d, 0x5a, 0x90, 0x00])], 'tool.exe', {
      type: 'application/x-msdownload',
    });
    draft.add([exe]);
    await waitFor(() => draftStatus(draft.getState()) === 'failed', 'the refusal');
    const [file] = draft.getState().files;
    expect([file!.error?.code, file!.error?.status, file!.error?.message]).toEqual([
      'unsupported_media_type',
      415,
      "the file's bytes are not application/x-msdownload",
    ]);
    draft.retry(file!.id);
    expect(draftStatus(draft.getState())).toBe('uploading');
    await waitFor(() => draftStatus(draft.getState()) === 'failed', 'the second refusal');
    release();
  });

  it('a prompt queued offline keeps its files across a reload and is sent once', async () => {
    const storage = createMemoryStorage();
    const online = createManualSignal(true);
    const chat = client(storage, online).chatSession('k');
    const release = chat.retain();
    await waitFor(() => chat.getState().hydrated, 'hydrated');
    const attachment = await uploadToChat(
      chat,
      new File([png(100)], 'dot.png', { type: 'image/png' }),
    );
    online.set(false);
    await chat.send('What is in this picture?', { attachments: [attachment] });
    const parts = [
      { type: 'text', text: 'What is in this picture?' },
      {
        type: 'image',
        source: { type: 'url', value: attachment.url, mimeType: 'image/png' },
        metadata: { fileId: attachment.fileId, name: 'dot.png', size: 100 },
      },
    ];
    expect(chat.getState().messages.map((m) => [m.role, m.content, m.pending])).toEqual([
      ['user', parts, 'queued'],
    ]);
    release();
    await clients[0]!.dispose();

    // The reload: a new client on the same storage, still offline.
    const online2 = createManualSignal(false);
    const again = client(storage, online2).chatSession('k');
    const release2 = again.retain();
    await waitFor(() => again.getState().hydrated, 'hydrated after the reload');
    expect(again.getState().outbox.map((o) => [o.text, o.attachments])).toEqual([
      ['What is in this picture?', [attachment]],
    ]);
    expect(again.getState().messages.map((m) => [m.role, m.content])).toEqual([['user', parts]]);
    expect(runPosts).toBe(0);

    online2.set(true);
    await waitFor(() => again.getState().outbox.length === 0, 'the prompt sent');
    await waitFor(() => again.run.getState().status === 'finished', 'the reply', 10_000);
    expect(runPosts).toBe(1);
    // The server keeps the prompt with its file part.
    const { threadId, token } = again.getState();
    const history = await fetch(`${server.url}/threads/${threadId}/messages`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const { messages } = (await history.json()) as {
      messages: { role: string; content: unknown }[];
    };
    const prompt = messages.find((m) => m.role === 'user')!;
    expect((prompt.content as unknown[])[1]).toMatchObject({
      type: 'image',
      source: { type: 'url', value: attachment.url, mimeType: 'image/png' },
    });
    release2();
  });
});
