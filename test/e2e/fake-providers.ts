import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Fake OpenAI and Anthropic endpoints on an ephemeral 127.0.0.1 port: each answers every
 * request with a fixed stream in the provider's own SSE format and records what it was
 * sent, so a test sees the real AI SDK providers' requests without a key or a network.
 * Used by the demo's agent test and the Next.js example's.
 */

export interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface FakeProvider {
  /** The base URL to give the provider (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`). */
  url: string;
  server: Server;
  seen: Seen[];
}

export async function fakeProvider(answer: (res: ServerResponse) => void): Promise<FakeProvider> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body: JSON.parse(text) });
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server, seen };
}

const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

const openaiChunk = (delta: unknown, finish: string | null = null, usage?: unknown) =>
  sse({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-test',
    choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  });

/** OpenAI Chat Completions streaming `deltas`, then 9 prompt and 2 completion tokens. */
export function openaiAnswer(deltas: string[]): (res: ServerResponse) => void {
  return (res) => {
    res.write(openaiChunk({ role: 'assistant', content: '' }));
    for (const content of deltas) res.write(openaiChunk({ content }));
    res.write(openaiChunk({}, 'stop'));
    res.write(openaiChunk({}, null, { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 }));
    res.end('data: [DONE]\n\n');
  };
}

/** Anthropic Messages streaming `deltas` in one text block, 9 input and 2 output tokens. */
export function anthropicAnswer(deltas: string[]): (res: ServerResponse) => void {
  return (res) => {
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 9, output_tokens: 1 },
    };
    const events: unknown[] = [
      { type: 'message_start', message },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      ...deltas.map((text) => ({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text },
      })),
      { type: 'content_block_stop', index: 0 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 2 },
      },
      { type: 'message_stop' },
    ];
    for (const event of events) res.write(sse(event, (event as { type: string }).type));
    res.end();
  };
}
