import type { Redis } from 'ioredis';
import { unavailable } from './tail.js';

export async function quit(client: Redis): Promise<void> {
  try {
    if (client.status === 'ready') {
      await client.quit();
      return;
    }
  } catch {
    // Redis went away meanwhile: drop the socket below.
  }
  client.disconnect();
}

export function redactedUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/**
 * Whether `client` can write now: ready, and its socket still writable. ioredis checks both
 * before it sends, and a socket Redis closed can still read `ready` for a moment.
 */
export function connectionUp(client: Redis): boolean {
  return client.status === 'ready' && client.stream?.writable === true;
}

/** What a `store_unavailable` says when Redis cannot be reached (credentials left out). */
export function unreachable(url: string, why: string): string {
  return `Redis at ${redactedUrl(url)} is unreachable (${why})`;
}

/**
 * Resolves when `client` is connected; `store_unavailable` after `waitMs`. One `ready`
 * listener per client however many operations wait (`waits` shares it).
 */
export async function whenReady(
  client: Redis,
  waits: WeakMap<Redis, Promise<void>>,
  waitMs: number,
  url: string,
): Promise<void> {
  if (client.status === 'ready') return;
  if (client.status === 'end') throw unavailable('the Redis store is closed');
  let wait = waits.get(client);
  if (!wait) {
    wait = new Promise<void>((resolve) => client.once('ready', () => resolve()));
    waits.set(client, wait);
    void wait.then(() => waits.delete(client));
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const why = `${client.status} for ${waitMs} ms`;
      reject(unavailable(unreachable(url, why)));
    }, waitMs);
  });
  try {
    await Promise.race([wait, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
