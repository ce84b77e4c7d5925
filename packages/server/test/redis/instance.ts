/**
 * One server instance on a shared Redis, as a real process for the multi-instance tests
 * (a SIGKILL needs a process of its own). Configured by the environment:
 * REDIS_URL, REDIS_PREFIX, LEASE_MS, INSTANCE_ID. Tells its parent over IPC:
 * `{type:'ready', url}` once listening, `{type:'aborted', runId}` when an agent's signal
 * aborts (how a test sees that a cancel made on another instance reached this one).
 */

import type { Agent } from '../../src/agents/types.js';
import { scriptedAgent, startServer } from '../../src/index.js';
import { RedisStore } from '../../src/stores/redis/redis-store.js';

const scripted = scriptedAgent();
const agent: Agent = (input, ctx) => {
  ctx.signal.addEventListener(
    'abort',
    () => process.send?.({ type: 'aborted', runId: input.runId }),
    { once: true },
  );
  return scripted(input, ctx);
};

const store = new RedisStore({
  url: process.env.REDIS_URL!,
  prefix: process.env.REDIS_PREFIX!,
  log: () => {},
});
const server = await startServer({
  port: 0,
  store,
  agent,
  leaseMs: Number(process.env.LEASE_MS ?? 1000),
  instanceId: process.env.INSTANCE_ID!,
  heartbeatMs: 1000,
});
process.send?.({ type: 'ready', url: server.url });
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
