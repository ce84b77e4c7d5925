import { simulateReadableStream, streamText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiSdkAgent } from '../src/ai-sdk/index.js';
import { type Agent, openaiAgent, type RunningServer, startServer } from '../src/index.js';
import { fakeUpstream } from './fake-upstream.js';
import { bearer, postRun } from './helpers.js';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 7, 7]);
const PDF = new TextEncoder().encode('%PDF-1.7\n%end');
const NOTE = new TextEncoder().encode('Bring water.');

/** The agent of the current test: the server (and its files) is shared. */
let current: Agent = async function* () {};
let server: RunningServer;
let upstream: Awaited<ReturnType<typeof fakeUpstream>>;
beforeAll(async () => {
  server = await startServer({ port: 0, store: 'memory', agent: (i, c) => current(i, c) });
  upstream = await fakeUpstream();
});
afterAll(async () => {
  await server.close();
  upstream.server.close();
});

/** A thread with three uploads; the user message naming them (and some text). */
async function threadWithFiles() {
  const made = await fetch(`${server.url}/threads`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
  });
  const { threadId, token } = await made.json();
  const upload = async (bytes: Uint8Array, type: string, name: string) => {
    const response = await fetch(`${server.url}/threads/${threadId}/files?name=${name}`, {
      method: 'POST',
      headers: { 'Content-Type': type, ...bearer(token) },
      body: bytes as BodyInit,
    });
    return (await response.json()) as { url: string };
  };
  const image = await upload(PNG, 'image/png', 'cat.png');
  const pdf = await upload(PDF, 'application/pdf', 'plan.pdf');
  const note = await upload(NOTE, 'text/plain', 'note.txt');
  const message = {
    id: 'u1',
    role: 'user',
    content: [
      { type: 'text', text: 'What is this?' },
      { type: 'image', source: { type: 'url', value: image.url, mimeType: 'image/png' } },
      { type: 'document', source: { type: 'url', value: pdf.url, mimeType: 'application/pdf' } },
      { type: 'document', source: { type: 'url', value: note.url, mimeType: 'text/plain' } },
    ],
  };
  return { threadId, token, message };
}

describe('agents get the files a prompt names, read from the store', () => {
  it('AI SDK: image and file parts with the bytes; text files as text', async () => {
    const model = new MockLanguageModelV4({
      doStream: {
        stream: simulateReadableStream({
          chunks: [
            {
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: {
                inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
                outputTokens: { total: 1, text: 1, reasoning: undefined },
              },
            },
          ],
          initialDelayInMs: null,
          chunkDelayInMs: null,
        }),
      },
    });
    current = aiSdkAgent(({ messages, signal }) =>
      streamText({ model, messages, abortSignal: signal }),
    );
    const { threadId, token, message } = await threadWithFiles();
    const run = await postRun(server.url, { threadId, messages: [message] }, bearer(token));
    expect(run.status).toBe(201);
    await server.manager.waitForRun(run.json.runId);
    expect(model.doStreamCalls[0]!.prompt).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          {
            type: 'file',
            data: { type: 'data', data: PNG },
            mediaType: 'image/png',
            filename: 'cat.png',
          },
          {
            type: 'file',
            data: { type: 'data', data: PDF },
            mediaType: 'application/pdf',
            filename: 'plan.pdf',
          },
          { type: 'text', text: 'note.txt:\nBring water.' },
        ],
      },
    ]);
  });

  it('OpenAI: image_url and file parts with data: URLs', async () => {
    upstream.handle((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'A cat.' } }] })}\n\n`,
      );
      res.write(
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
      );
      res.end('data: [DONE]\n\n');
    });
    current = openaiAgent({ baseUrl: `${upstream.url}/v1`, apiKey: 'sk-test', model: 'fake' });
    const { threadId, token, message } = await threadWithFiles();
    const run = await postRun(server.url, { threadId, messages: [message] }, bearer(token));
    await server.manager.waitForRun(run.json.runId);
    const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
    expect((upstream.requests.at(-1)!.body as { messages: unknown }).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${base64(PNG)}` } },
          {
            type: 'file',
            file: { filename: 'plan.pdf', file_data: `data:application/pdf;base64,${base64(PDF)}` },
          },
          { type: 'text', text: 'note.txt:\nBring water.' },
        ],
      },
    ]);
  });
});
