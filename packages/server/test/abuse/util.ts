import { connect } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll } from 'vitest';
import {
  type EventStore,
  type RunningServer,
  type StartServerOptions,
  startServer,
} from '../../src/index.js';
import { tempDir } from '../helpers.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Heap in use after a full collection: the server runs in this process. */
export async function heapAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

export const MB = 1024 * 1024;

/**
 * Sends raw bytes on one socket and collects everything the server sends back until it
 * closes the connection (or `timeoutMs`). `reset` tells a clean close from a reset.
 */
export function rawExchange(
  port: number,
  request: string,
  timeoutMs = 3000,
): Promise<{ text: string; closed: boolean; reset: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let reset = false;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false, reset });
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => {
      reset = true;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true, reset });
    });
    socket.write(request);
  });
}

/** The status, headers (lower-cased) and body of a raw HTTP/1.1 response. */
export function parseRaw(text: string): {
  status: number;
  headers: Map<string, string>;
  body: string;
} {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

export function errorBody(code: string, message: string | RegExp) {
  return { error: { code, message } };
}

/**
 * A server on `create`'s store for one `describe.each(STORES)` block, started before its
 * tests and closed after: `ctx.server`, and `ctx.logged`, what it reported through `log`.
 */
export function useStoreServer(
  create: (dir: string) => EventStore,
  options: Omit<StartServerOptions, 'store' | 'port' | 'log'> = {},
) {
  const dir = tempDir();
  const ctx = { server: undefined as unknown as RunningServer, logged: [] as string[] };
  beforeAll(async () => {
    ctx.server = await startServer({
      port: 0,
      store: create(dir.path),
      log: (message) => ctx.logged.push(message),
      ...options,
    });
  });
  afterAll(async () => {
    await ctx.server.close();
    dir.cleanup();
  });
  return ctx;
}

/** Resolves `promise`, or the string 'timeout' after `ms`. */
export const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([
    promise,
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms)),
  ]);
