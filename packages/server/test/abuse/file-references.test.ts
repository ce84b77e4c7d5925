import { join } from 'node:path';
import { EventType } from '@resumable/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, MemoryStore, type RunningServer, startServer } from '../../src/index.js';
import { bearer, createThread, postRun, STORES, tempDir } from '../helpers.js';
import { errorBody } from './util.js';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9, 9]);

/** Each store keeping its own files, and two with a files directory (where `../` is a path). */
const VARIANTS = [
  ...STORES.map((s) => ({ ...s, directory: false })),
  { name: 'memory + directory', create: () => new MemoryStore(), directory: true },
  { name: 'sqlite + directory', create: STORES[1]!.create, directory: true },
];

/** What the agent's `readFile` gave for each URL the run's `forwardedProps.read` named. */
const reads = new Map<string, Array<string | null>>();
const readingAgent: Agent = async function* (input, context) {
  const urls = (input.forwardedProps as { read?: string[] } | undefined)?.read ?? [];
  const found: Array<string | null> = [];
  for (const url of urls) {
    const file = context.readFile ? await context.readFile(url) : null;
    found.push(file ? `${file.file.threadId}/${file.file.fileId}` : null);
  }
  reads.set(input.runId, found);
  const messageId = `m-${input.runId}`;
  yield { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' };
  yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: 'read' };
  yield { type: EventType.TEXT_MESSAGE_END, messageId };
};

/**
 * Issue 26, findings 1 and 4: a file reference resolves only inside its own thread — in
 * the prompt check, the download route and the agent's reader — and a malformed escape in
 * one is a 400, never a 500.
 */
describe.each(VARIANTS)('file references stay in their thread on the $name store', (variant) => {
  const dir = tempDir();
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({
      port: 0,
      store: variant.create(dir.path),
      agent: readingAgent,
      log: () => {},
      ...(variant.directory ? { files: { directory: join(dir.path, 'files') } } : {}),
    });
  });
  afterAll(async () => {
    await server.close();
    dir.cleanup();
  });

  const newThread = () => createThread(server.url);
  const upload = async (thread: { threadId: string; token: string }) => {
    const response = await fetch(`${server.url}/threads/${thread.threadId}/files?name=v.png`, {
      method: 'POST',
      headers: { 'Content-Type': 'image/png', ...bearer(thread.token) },
      body: PNG as BodyInit,
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { fileId: string; url: string };
  };
  const imagePrompt = (threadId: string, url: string, read: string[] = []) => ({
    threadId,
    messages: [
      {
        id: `u-${crypto.randomUUID()}`,
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', source: { type: 'url', value: url } },
        ],
      },
    ],
    forwardedProps: { read },
  });
  const refusal = errorBody(
    'bad_request',
    'messages[0].content[1].source must be {type:"url", value} with the URL of a file uploaded to this thread',
  );

  it("a prompt naming another thread's file through ../ is 400; the download and the agent's reader find nothing", async () => {
    const victim = await newThread();
    const secret = await upload(victim);
    const attacker = await newThread();
    const own = await upload(attacker);
    const escapes = [
      `/api/threads/${attacker.threadId}/files/..%2F${victim.threadId}%2F${secret.fileId}`,
      `/api/threads/${attacker.threadId}/files/..%2f${victim.threadId}%2f${secret.fileId}`,
      `/api/threads/${attacker.threadId}/files/..%5C${victim.threadId}%5C${secret.fileId}`,
      `http://x.invalid/api/threads/${attacker.threadId}/files/..%2F${victim.threadId}%2F${secret.fileId}?token=t`,
    ];
    for (const url of escapes) {
      const refused = await postRun(server.url, imagePrompt(attacker.threadId, url), {
        ...bearer(attacker.token),
      });
      // Before: 201 in a directory (the lookup resolved the victim's file through ../).
      expect([url, refused.status, refused.json]).toEqual([url, 400, refusal]);
      const download = await fetch(new URL(new URL(url, server.url).pathname, server.url), {
        headers: bearer(attacker.token),
      });
      expect([url, download.status]).toEqual([url, 404]);
      expect(await download.json()).toEqual({
        error: { code: 'file_not_found', message: expect.stringMatching(/^thread .* has no file/) },
      });
    }
    // The agent's reader: its own file by its URL, nothing through any of the escapes.
    const run = await postRun(
      server.url,
      imagePrompt(attacker.threadId, own.url, [own.url, ...escapes]),
      {
        ...bearer(attacker.token),
      },
    );
    expect(run.status).toBe(201);
    await server.manager.waitForRun(run.json.runId);
    expect(reads.get(run.json.runId)).toEqual([
      `${attacker.threadId}/${own.fileId}`,
      null,
      null,
      null,
      null,
    ]);
  });

  it.each(['%E0%A4%A', '%', '%zz', '%C0%80', '%ED%A0%80'])(
    'a file reference with the malformed escape %s is 400, and the reader gives null',
    async (malformed) => {
      const thread = await newThread();
      const own = await upload(thread);
      const url = `/api/threads/${thread.threadId}/files/${malformed}`;
      // Before: 500 internal (URIError: URI malformed).
      const refused = await postRun(
        server.url,
        imagePrompt(thread.threadId, url),
        bearer(thread.token),
      );
      expect([refused.status, refused.json]).toEqual([400, refusal]);
      const run = await postRun(
        server.url,
        imagePrompt(thread.threadId, own.url, [url]),
        bearer(thread.token),
      );
      expect(run.status).toBe(201);
      await server.manager.waitForRun(run.json.runId);
      expect(reads.get(run.json.runId)).toEqual([null]);
    },
  );
});
