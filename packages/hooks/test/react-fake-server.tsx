/**
 * The React hook suites' shared setup: a fresh `FakeServer` per test (`server`, a live
 * binding), the tree unmounted after it, and a provider of it with fast retries.
 */
import { cleanup } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach } from 'vitest';
import type { ManualSignal } from '../src/core/base/env.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { FakeServer, type FakeServerOptions } from './fake-server.js';
import { TestProvider } from './react-harness.js';

// A live binding: the hooks below set it per test.
export let server: FakeServer;

/** In the calling test file: a 20-token server before each test; unmount, close it after. */
export function fakeServerPerTest(): void {
  beforeEach(async () => {
    server = await new FakeServer({ tokens: 20, intervalMs: 3 }).start();
  });
  afterEach(async () => {
    cleanup();
    await server.close();
  });
}

/** Closes this test's server and starts another with `options` in its place. */
export async function replaceServer(options: FakeServerOptions) {
  await server.close();
  server = await new FakeServer(options).start();
}

export const RUN = 'run-react-0123456789';
/** The `after` of each `GET /runs/{runId}/events`, in order. */
export const eventsRequests = (runId: string) =>
  server.requests.filter((r) => r.path === `/runs/${runId}/events`).map((r) => r.after);

/** A provider of `server` (or `endpoint`) with fast retries. */
export function Providers(props: {
  storage: RecordStorage;
  endpoint?: string;
  online?: ManualSignal;
  fetch?: typeof fetch;
  children: ReactNode;
}) {
  return <TestProvider endpoint={server.url} backoff={{ initialMs: 5, maxMs: 20 }} {...props} />;
}
