import type { TabLocks } from '../src/core/base/env.js';

/**
 * A minimal in-process stand-in for the Web Locks API (Node 20 has no `navigator.locks`):
 * exclusive locks only, with `ifAvailable`, `steal` and `signal`, granted in request order.
 * Each `client()` is one tab; `kill()` is that tab dying — the browser releases its held
 * locks and drops its queued requests, which is what lets a follower take over.
 */
export class LockManagerStandIn {
  private readonly held = new Map<
    string,
    { client: number; release: () => void; steal: () => void }
  >();
  private readonly queues = new Map<string, Waiter[]>();
  private clients = 0;

  client(): TabLocks & { kill(): void; id: number } {
    const id = ++this.clients;
    return {
      id,
      request: (name, options, callback) => this.request(id, name, options, callback),
      kill: () => this.kill(id),
    };
  }

  holder(name: string): number | null {
    return this.held.get(name)?.client ?? null;
  }

  private request(
    client: number,
    name: string,
    options: { ifAvailable?: boolean; steal?: boolean; signal?: AbortSignal },
    callback: (lock: unknown) => unknown,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { client, name, callback, resolve, reject };
      if (options.steal) {
        const current = this.held.get(name);
        this.held.delete(name);
        current?.steal();
        this.grant(waiter);
        return;
      }
      if (this.held.has(name) || (this.queues.get(name)?.length ?? 0) > 0) {
        if (options.ifAvailable) {
          Promise.resolve(callback(null)).then(resolve, reject);
          return;
        }
        const queue = this.queues.get(name) ?? [];
        queue.push(waiter);
        this.queues.set(name, queue);
        options.signal?.addEventListener('abort', () => {
          const i = queue.indexOf(waiter);
          if (i < 0) return;
          queue.splice(i, 1);
          reject(new DOMException('aborted', 'AbortError'));
        });
        return;
      }
      this.grant(waiter);
    });
  }

  private grant(waiter: Waiter): void {
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      if (this.held.get(waiter.name)?.client === waiter.client) this.held.delete(waiter.name);
      this.next(waiter.name);
    };
    this.held.set(waiter.name, {
      client: waiter.client,
      release,
      steal: () => {
        done = true;
        waiter.reject(new DOMException('stolen', 'AbortError'));
      },
    });
    // The callback runs in a later task, as a browser grants it.
    setTimeout(() => {
      if (done) return;
      Promise.resolve(waiter.callback({ name: waiter.name, mode: 'exclusive' })).then(
        (value) => {
          if (done) return;
          release();
          waiter.resolve(value);
        },
        (error) => {
          if (done) return;
          release();
          waiter.reject(error);
        },
      );
    }, 0);
  }

  private next(name: string): void {
    const waiter = this.queues.get(name)?.shift();
    if (waiter && !this.held.has(name)) this.grant(waiter);
  }

  private kill(client: number): void {
    for (const [name, queue] of this.queues) {
      this.queues.set(
        name,
        queue.filter((w) => w.client !== client),
      );
    }
    for (const [name, lock] of [...this.held]) {
      if (lock.client !== client) continue;
      this.held.delete(name);
      this.next(name);
    }
  }
}

interface Waiter {
  client: number;
  name: string;
  callback: (lock: unknown) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}
