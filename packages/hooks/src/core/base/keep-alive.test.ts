import { describe, expect, it } from 'vitest';
import { KeepAlive } from './keep-alive.js';

describe('KeepAlive', () => {
  it("StrictMode's retain, release, retain activates once (no second subscription set)", async () => {
    const calls: string[] = [];
    const keepAlive = new KeepAlive({
      activate: () => calls.push('activate'),
      deactivate: () => calls.push('deactivate'),
      setTimeout: (callback, ms) => setTimeout(callback, ms),
      clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    });
    const first = keepAlive.retain();
    first();
    const second = keepAlive.retain();
    await new Promise((r) => setTimeout(r, 5));
    expect(calls).toEqual(['activate']);
    second();
    await new Promise((r) => setTimeout(r, 5));
    expect(calls).toEqual(['activate', 'deactivate']);
    keepAlive.retain();
    expect(calls).toEqual(['activate', 'deactivate', 'activate']);
  });
});
