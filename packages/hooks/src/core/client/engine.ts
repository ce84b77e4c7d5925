// The engine: what `useResumableChat` and `useResumableRun` load with `import()` on first
// use (the sessions, the transport, reconnect, fold, outbox…). The first paint shows the
// stored transcript without it (`first-paint.ts`). Also public as `@resumable/hooks/core`.
export { defaultClient, ResumableClient } from './resumable-client.js';
