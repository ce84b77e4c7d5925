import { existsSync, readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectoryFiles } from '../src/index.js';
import type { FileStore, StoredFile } from '../src/stores/types.js';
import { CLUSTER_STORES, putFile, tempDir } from './helpers.js';

/** Every `FileStore`: each store's own, and a files directory. */
const FILE_STORES: Array<{
  name: string;
  open: (dir: string) => { files: FileStore; close(): Promise<void> };
}> = [
  ...CLUSTER_STORES.map(({ name, create }) => ({
    name,
    open: (dir: string) => {
      const store = create(dir);
      return { files: store.files, close: () => store.close() };
    },
  })),
  {
    name: 'directory',
    open: (dir: string) => ({
      files: new DirectoryFiles(join(dir, 'files')),
      close: async () => {},
    }),
  },
];

describe.each(FILE_STORES)('FileStore.remove: $name', ({ name, open }) => {
  const dir = tempDir();
  let opened: ReturnType<typeof open>;
  beforeAll(() => {
    opened = open(dir.path);
  });
  afterAll(async () => {
    await opened.close();
    dir.cleanup();
  });
  const file = (threadId: string, fileId: string, size: number): StoredFile => ({
    fileId,
    threadId,
    name: `${fileId}.txt`,
    mimeType: 'text/plain',
    size,
    createdAt: 1000,
  });
  const put = (f: StoredFile) => putFile(opened.files, f, new Uint8Array(f.size).fill(97), 1000);

  it('deletes one file, named by a prompt or not, and its share of the thread total', async () => {
    const { files } = opened;
    const threadId = `t-${crypto.randomUUID()}`;
    const [a, b, c] = [
      file(threadId, 'a', 600),
      file(threadId, 'b', 400),
      file(threadId, 'c', 600),
    ];
    const other = file(`o-${crypto.randomUUID()}`, 'a', 600);
    expect([await put(a), await put(b), await put(other), await put(c)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    await files.markReferenced?.(threadId, 'b');
    await files.remove(threadId, 'a');
    await files.remove(threadId, 'missing');
    expect(await files.head(threadId, 'a')).toBeNull();
    expect(await files.get(threadId, 'a')).toBeNull();
    // Its 600 bytes left the total: c fits now.
    expect(await put(c)).toBe(true);
    await files.remove(threadId, 'b');
    expect(await files.head(threadId, 'b')).toBeNull();
    expect(await files.head(other.threadId, 'a')).toEqual(other);
    expect(await files.head(threadId, 'c')).toEqual(c);
    // The removed upload is no longer waiting for the sweep: only c and other are.
    if (name !== 'directory') expect(await files.sweepUnreferenced?.(2000, 10)).toBe(2);
  });
});

describe('DirectoryFiles: uploads a crash left half-written', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());

  it('are swept once older than the cut-off; a live upload and committed files stay', async () => {
    const files = new DirectoryFiles(join(dir.path, 'files'));
    const staged = (threadId: string, fileId: string) =>
      join(dir.path, 'files', '+uploads', threadId, fileId);
    // A process stopped mid-upload: written, never committed or aborted.
    const crashed = files.upload('t-crashed', 'f1');
    await crashed.write(new Uint8Array(10).fill(97));
    const crashed2 = files.upload('t-crashed', 'f2');
    await crashed2.write(new Uint8Array(10).fill(97));
    const hour = 3_600_000;
    const old = (Date.now() - 25 * hour) / 1000;
    utimesSync(staged('t-crashed', 'f1'), old, old);
    utimesSync(staged('t-crashed', 'f2'), old, old);
    // An upload still arriving, in another thread.
    const live = files.upload('t-live', 'f1');
    await live.write(new Uint8Array(5).fill(98));
    const kept = file('t-kept', 'f1', 3);
    expect(await putFile(files, kept, new Uint8Array(3).fill(99), 1000)).toBe(true);

    expect(await files.sweepUnreferenced(Date.now() - 24 * hour, 1)).toBe(1);
    expect(await files.sweepUnreferenced(Date.now() - 24 * hour, 100)).toBe(1);
    expect(await files.sweepUnreferenced(Date.now() - 24 * hour, 100)).toBe(0);
    expect(existsSync(join(dir.path, 'files', '+uploads', 't-crashed'))).toBe(false);
    expect(readdirSync(join(dir.path, 'files', '+uploads'))).toEqual(['t-live']);
    // The live upload commits as if nothing happened; the committed file is untouched.
    await live.write(new Uint8Array(5).fill(98));
    expect(await live.commit(file('t-live', 'f1', 10), 1_000)).toBe(true);
    expect(await files.get('t-live', 'f1')).toEqual({
      file: file('t-live', 'f1', 10),
      bytes: new Uint8Array([...new Uint8Array(5).fill(98), ...new Uint8Array(5).fill(98)]),
    });
    expect(await files.head('t-kept', 'f1')).toEqual(kept);
  });
});

function file(threadId: string, fileId: string, size: number): StoredFile {
  return { fileId, threadId, name: `${fileId}.txt`, mimeType: 'text/plain', size, createdAt: 1000 };
}
