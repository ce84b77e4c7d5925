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
