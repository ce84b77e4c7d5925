import { readdirSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EventStore,
  MemoryStore,
  type RedisStore,
  type RunningServer,
  SqliteStore,
  startServer,
} from '../../src/index.js';
import { bearer, createThread, tempDir, waitFor } from '../helpers.js';
import { testRedisStore, testRedisUrl } from '../redis/shared.js';
import { MB, within } from './util.js';

const PNG_SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Issue 26, "upload bodies stream to the store": where each store keeps an upload while it
 * arrives, and how many of its bytes are there now.
 */
const VARIANTS: Array<{
  name: string;
  create: (dir: string) => EventStore;
  directory: boolean;
  stored: (dir: string, store: EventStore, threadId: string) => Promise<number>;
  /** Whether the file's bytes stay where they were written (SQLite's pieces are the file). */
  writtenInPlace: boolean;
}> = [
  {
    name: 'sqlite',
    create: (dir) => new SqliteStore({ path: join(dir, 'runs.db') }),
    directory: false,
    writtenInPlace: true,
    stored: async (dir, _store, threadId) => {
      const db = new Database(join(dir, 'runs.db'), { readonly: true });
      try {
        const row = db
          .prepare(
            'SELECT COALESCE(SUM(length(bytes)), 0) AS n FROM file_pieces WHERE thread_id = ?',
          )
          .get(threadId) as { n: number };
        return Number(row.n);
      } finally {
        db.close();
      }
    },
  },
  {
    name: 'redis',
    create: () => testRedisStore(),
    directory: false,
    writtenInPlace: false,
    stored: async (_dir, store, threadId) => {
      const prefix = (store as RedisStore as unknown as { keys: { prefix: string } }).keys.prefix;
      const redis = new Redis(testRedisUrl());
      try {
        const keys = await redis.keys(`${prefix}{${threadId}}:upload:*`);
        let total = 0;
        for (const key of keys) total += await redis.strlen(key);
        return total;
      } finally {
        redis.disconnect();
      }
    },
  },
  {
    name: 'memory + directory',
    create: () => new MemoryStore(),
    directory: true,
    writtenInPlace: false,
    stored: async (dir, _store, threadId) => {
      const staging = join(dir, 'files', '+uploads', threadId);
      let total = 0;
      try {
        for (const name of readdirSync(staging)) total += statSync(join(staging, name)).size;
      } catch {
        return 0;
      }
      return total;
    },
  },
];

describe.each(VARIANTS)('an upload goes to the $name store as it arrives', (variant) => {
  const dir = tempDir();
  let server: RunningServer;
  let store: EventStore;
  beforeAll(async () => {
    store = variant.create(dir.path);
    server = await startServer({
      port: 0,
      store,
      log: () => {},
      ...(variant.directory ? { files: { directory: join(dir.path, 'files') } } : {}),
    });
  });
  afterAll(async () => {
    await server.close();
    dir.cleanup();
  });

  it('3 of its 4 MiB sent: at least 2 MiB are in the store before the rest comes; then 201 and the same bytes', async () => {
    const thread = await createThread(server.url);
    const body = new Uint8Array(4 * MB);
    body.set(PNG_SIGNATURE);
    for (let i = PNG_SIGNATURE.length; i < body.length; i++) body[i] = i % 251;
    const socket = connect(server.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
    });
    const closed = new Promise((resolve) => socket.on('close', resolve));
    const chunk = (bytes: Uint8Array) =>
      Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
    socket.write(
      [
        `POST /api/threads/${thread.threadId}/files?name=big.png HTTP/1.1`,
        'Host: x',
        `Authorization: Bearer ${thread.token}`,
        'Content-Type: image/png',
        'Transfer-Encoding: chunked',
        'Connection: close',
        '',
        '',
      ].join('\r\n'),
    );
    for (let at = 0; at < 3 * MB; at += 64 * 1024)
      socket.write(chunk(body.subarray(at, at + 64 * 1024)));
    // Before: the body was held whole in memory until its end, and the store had nothing.
    const arrived = await within(
      waitFor(async () => (await variant.stored(dir.path, store, thread.threadId)) >= 2 * MB, 5000),
      6000,
    );
    expect(arrived).toBeUndefined();
    expect(answer).toBe('');
    for (let at = 3 * MB; at < 4 * MB; at += 64 * 1024)
      socket.write(chunk(body.subarray(at, at + 64 * 1024)));
    // Not end(): a client that half-closes before its answer has the request aborted.
    socket.write('0\r\n\r\n');
    await closed;
    const status = Number(answer.split(' ')[1]);
    const { url } = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { url: string };
    expect(status).toBe(201);
    const read = await fetch(new URL(url, server.url), { headers: bearer(thread.token) });
    expect(Buffer.from(await read.arrayBuffer()).equals(Buffer.from(body))).toBe(true);
    // Committed: moved out of where it was written (SQLite: its pieces are the file).
    expect(await variant.stored(dir.path, store, thread.threadId)).toBe(
      variant.writtenInPlace ? 4 * MB : 0,
    );
  });
});
