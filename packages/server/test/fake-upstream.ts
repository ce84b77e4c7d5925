import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { openaiAgent, type RunningServer, startServer } from '../src/index.js';

export type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** A fake upstream on 127.0.0.1 whose behaviour each test sets. */
export async function fakeUpstream(): Promise<{
  url: string;
  server: Server;
  handle: (handler: Handler) => void;
  requests: Array<{ headers: IncomingMessage['headers']; body: unknown }>;
}> {
  let handler: Handler = (_req, _body, res) => res.end();
  const requests: Array<{ headers: IncomingMessage['headers']; body: unknown }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      requests.push({ headers: req.headers, body: body ? JSON.parse(body) : null });
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    handle: (h) => {
      handler = h;
    },
    requests,
  };
}

/** One Chat Completions stream chunk as an SSE frame. */
export const chunk = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** A fake upstream and a real server whose `openaiAgent` calls it, for one suite. */
export function useOpenAIServer() {
  const stack = {
    upstream: null as unknown as Awaited<ReturnType<typeof fakeUpstream>>,
    server: null as unknown as RunningServer,
  };
  beforeAll(async () => {
    stack.upstream = await fakeUpstream();
    stack.server = await startServer({
      port: 0,
      store: 'memory',
      agent: openaiAgent({
        baseUrl: `${stack.upstream.url}/v1`,
        apiKey: 'sk-test',
        model: 'fake-model',
      }),
    });
  });
  afterAll(async () => {
    await stack.server.close();
    stack.upstream.server.close();
  });
  return stack;
}
