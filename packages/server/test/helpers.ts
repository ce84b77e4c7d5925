import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { type RunningServer, type StartServerOptions, startServer } from '../src/index.js';
import { MemoryStore } from '../src/stores/memory/memory-store.js';
import { SqliteStore } from '../src/stores/sqlite/sqlite-store.js';
import type { EventStore, FileStore, StoredFile } from '../src/stores/types.js';
import { testClusterStore, testRedisStore } from './redis/shared.js';

/** A temp directory removed by `cleanup()`. */
export function tempDir(): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), 'resumable-server-'));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * The stores the store-facing suites run against: one suite, three stores. The Redis one
 * uses the project's test redis-server (test/redis/global-setup.ts) under a fresh prefix.
 */
export const STORES: Array<{ name: string; create: (dir: string) => EventStore }> = [
  { name: 'memory', create: () => new MemoryStore() },
  { name: 'sqlite', create: (dir) => new SqliteStore({ path: join(dir, 'runs.db') }) },
  { name: 'redis', create: () => testRedisStore() },
];

/**
 * The stores the conformance suites run against: the three above and a Redis Cluster
 * (the project's test cluster, 3 primaries and 3 replicas; appends wait for a replica).
 */
export const CLUSTER_STORES: Array<{ name: string; create: (dir: string) => EventStore }> = [
  ...STORES,
  { name: 'redis cluster', create: () => testClusterStore() },
];

export async function serve(
  create: (dir: string) => EventStore,
  dir: string,
  options: Omit<StartServerOptions, 'store'> = {},
): Promise<RunningServer> {
  return startServer({ port: 0, store: create(dir), ...options });
}

export interface Frame {
  offset: number;
  json: string;
}

export interface StreamRead {
  status: number;
  headers: Headers;
  frames: Frame[];
  /** The raw body, when `raw` was asked for (comments such as `: ping` are not frames). */
  body: string;
}

/** Reads an SSE response to its end (or until `stopAfter` frames, then aborts). */
export async function readEvents(
  url: string,
  init: RequestInit = {},
  stopAfter = Number.POSITIVE_INFINITY,
  raw = false,
): Promise<StreamRead> {
  const controller = new AbortController();
  const response = await fetch(url, { ...init, signal: controller.signal });
  const frames: Frame[] = [];
  if (response.status !== 200 || !response.body) {
    return {
      status: response.status,
      headers: response.headers,
      frames,
      body: await response.text(),
    };
  }
  // The raw text (for comments such as `: ping`) only when asked: teeing costs time.
  const [forParser, forRaw] = raw ? response.body.tee() : [response.body, null];
  const rawText = forRaw ? new Response(forRaw).text().catch(() => '') : Promise.resolve('');
  const reader = forParser
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  try {
    while (frames.length < stopAfter) {
      const step = await reader.read();
      if (step.done) break;
      frames.push({ offset: Number(step.value.id), json: step.value.data });
    }
  } finally {
    if (frames.length >= stopAfter) controller.abort();
  }
  const body = frames.length >= stopAfter ? '' : await rawText;
  return { status: response.status, headers: response.headers, frames, body };
}

export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

export interface Started {
  runId: string;
  threadId: string;
  token: string;
}

export async function postRun(
  base: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Started & Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${base}/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json(), headers: response.headers };
}

/** Stores `bytes` as `file` through `FileStore.upload`, in one write. */
export async function putFile(
  files: FileStore,
  file: StoredFile,
  bytes: Uint8Array,
  maxThreadBytes: number,
): Promise<boolean> {
  const upload = files.upload(file.threadId, file.fileId);
  await upload.write(bytes);
  return upload.commit(file, maxThreadBytes);
}

/** An empty thread (`POST /threads`): its id and token. */
export async function createThread(
  base: string,
  headers: Record<string, string> = {},
): Promise<{ threadId: string; token: string }> {
  const response = await fetch(`${base}/threads`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: '{}',
  });
  if (response.status !== 201) throw new Error(`POST /threads: ${response.status}`);
  return (await response.json()) as { threadId: string; token: string };
}

export function prompt(text: string, script?: Record<string, unknown>, id = 'u1') {
  return {
    messages: [{ id, role: 'user', content: text }],
    ...(script ? { forwardedProps: { script } } : {}),
  };
}

export function types(frames: Frame[]): string[] {
  return frames.map((f) => (JSON.parse(f.json) as { type: string }).type);
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Reads an SSE stream in the background: `frames` grows as they come, `done` at its end. */
export function follow(
  url: string,
  init: RequestInit = {},
): { frames: Frame[]; done: Promise<Frame[]> } {
  const frames: Frame[] = [];
  const done = (async () => {
    const response = await fetch(url, init);
    if (response.status !== 200 || !response.body) throw new Error(`HTTP ${response.status}`);
    const reader = response.body
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream())
      .getReader();
    for (;;) {
      const step = await reader.read();
      if (step.done) return frames;
      frames.push({ offset: Number(step.value.id), json: step.value.data });
    }
  })();
  return { frames, done };
}

/** The parsed log of a run, once it has ended. */
export async function logOf(server: RunningServer, runId: string, token: string) {
  await server.manager.waitForRun(runId);
  const read = await readEvents(`${server.url}/runs/${runId}/events`, { headers: bearer(token) });
  return read.frames.map((f) => JSON.parse(f.json) as Record<string, unknown>);
}
