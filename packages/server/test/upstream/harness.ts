import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect } from 'vitest';
import {
  type Agent,
  type AguiProxyAgentOptions,
  aguiProxyAgent,
  type OpenAIAgentOptions,
  openaiAgent,
  type RunningServer,
  startServer,
} from '../../src/index.js';
import { bearer, logOf, postRun, prompt } from '../helpers.js';

export type Respond = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** A hostile upstream on 127.0.0.1: what it answers, and when our side closed its socket. */
export interface HostileUpstream {
  url: string;
  /** Sockets of the requests our server made, and when each closed (null: still open). */
  sockets: Array<{ closedAt: number | null }>;
  /** Bodies of the requests, as JSON. */
  bodies: unknown[];
}

const servers: RunningServer[] = [];
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const server of servers) await server.close();
  for (const close of closers) await close();
});

export async function hostileUpstream(respond: Respond): Promise<HostileUpstream> {
  const sockets: HostileUpstream['sockets'] = [];
  const bodies: unknown[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    const entry = { closedAt: null as number | null };
    sockets.push(entry);
    req.socket.on('close', () => {
      entry.closedAt = Date.now();
    });
    req.on('end', () => {
      bodies.push(JSON.parse(body));
      respond(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, sockets, bodies };
}

/** The server limits a suite may set (the run clocks: `agentTimeoutMs`, `maxRunMs`). */
type ServerLimits = NonNullable<NonNullable<Parameters<typeof startServer>[0]>['limits']>;

/** A real server (memory store) running `agent`; what the manager logs is kept. */
export async function serveAgent(
  agent: Agent,
  limits?: ServerLimits,
): Promise<RunningServer & { logs: string[] }> {
  const logs: string[] = [];
  const server = await startServer({
    port: 0,
    store: 'memory',
    agent,
    log: (line) => logs.push(line),
    ...(limits ? { limits } : {}),
  });
  servers.push(server);
  return Object.assign(server, { logs });
}

/** A hostile OpenAI-compatible upstream and a server whose `openaiAgent` calls it. */
export async function openaiStack(
  respond: Respond,
  options: OpenAIAgentOptions,
  limits?: ServerLimits,
) {
  const upstream = await hostileUpstream(respond);
  const agent = openaiAgent({ baseUrl: upstream.url, apiKey: 'k', ...options });
  const server = await serveAgent(agent, limits);
  return { upstream, server, what: `the OpenAI-compatible endpoint ${upstream.url}` };
}

/** A hostile AG-UI upstream and a server whose `aguiProxyAgent` proxies to it. */
export async function aguiStack(respond: Respond, options: AguiProxyAgentOptions) {
  const upstream = await hostileUpstream(respond);
  const url = `${upstream.url}/agent`;
  const server = await serveAgent(aguiProxyAgent({ url, ...options }));
  return { upstream, server, what: `the upstream AG-UI agent at ${url}` };
}

/** The log of a run that streamed `deltas` as one message, then ended with `terminal`. */
export function textLog(
  run: { threadId: string; runId: string },
  deltas: string[],
  terminal: Record<string, unknown>,
) {
  const messageId = `msg-${run.runId}`;
  return [
    { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId },
    { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' },
    ...deltas.map((delta) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta })),
    terminal,
  ];
}

/** Events of one `prompt('go')` run, read once it ended, and how long it took to end. */
export async function runToEnd(server: RunningServer, withinMs = 3_000) {
  const began = Date.now();
  const { json: run, status } = await postRun(server.url, prompt('go'));
  expect(status).toBe(201);
  const ended = await Promise.race([
    server.manager.waitForRun(run.runId).then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), withinMs)),
  ]);
  expect(ended, `the run did not end within ${withinMs} ms`).toBe(true);
  const elapsed = Date.now() - began;
  return { run, elapsed, log: await logOf(server, run.runId, run.token) };
}

/** Waits (bounded) until every socket the upstream saw was closed; how long since `from`. */
export async function socketsClosed(upstream: HostileUpstream, from: number, withinMs = 2_000) {
  const until = Date.now() + withinMs;
  while (upstream.sockets.length === 0 || upstream.sockets.some((s) => s.closedAt === null)) {
    if (Date.now() > until) throw new Error(`upstream sockets still open after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Math.max(...upstream.sockets.map((s) => s.closedAt!)) - from;
}

export { bearer };

/** The events of one reasoning message `id` streaming `deltas`. */
export const reasoningMessage = (id: string, deltas: string[]) => [
  { type: 'REASONING_MESSAGE_START', messageId: id, role: 'reasoning' },
  ...deltas.map((delta) => ({ type: 'REASONING_MESSAGE_CONTENT', messageId: id, delta })),
  { type: 'REASONING_MESSAGE_END', messageId: id },
];

/** The events of one assistant text message `id` streaming `deltas`. */
export const textMessage = (id: string, deltas: string[]) => [
  { type: 'TEXT_MESSAGE_START', messageId: id, role: 'assistant' },
  ...deltas.map((delta) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta })),
  { type: 'TEXT_MESSAGE_END', messageId: id },
];

/** The two events every failed run of these suites has: its start and its error. */
export function failed(run: { threadId: string; runId: string }, message: string) {
  return [
    { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId },
    { type: 'RUN_ERROR', message, code: 'upstream_failed' },
  ];
}

/** An SSE frame of one JSON value. */
export const frame = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
