import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createResumableApp } from '@resumable/server';
import { pickAgent } from './agent.js';
import { CHAOS_PREFIX, createChaos } from './chaos.js';
import { portInUseMessage } from './port-in-use.js';
import { createDemoRoutes, DEMO_PREFIX } from './server-run.js';

/**
 * The demo's API server process: the kit's reference server (`createResumableApp`) plus the
 * demo-only chaos endpoints, on one port. `supervisor.ts` runs it as a child process and
 * starts it again when it exits; run alone (`pnpm --filter @resumable/demo server`) it is
 * the reference server with the chaos endpoints.
 *
 * Environment: PORT (8787), HOST (127.0.0.1), RESUMABLE_STORE (memory | sqlite:<path>;
 * default sqlite:.data/resumable.db), SCRIPTED_TOKENS / SCRIPTED_TPS (the scripted agent's
 * defaults), and the agent's (see `pickAgent` in agent.ts: OPENAI_API_KEY / ANTHROPIC_API_KEY
 * select a real model through the AI SDK; otherwise the scripted agent).
 */

const port = Number(process.env.PORT ?? 8787);
const hostname = process.env.HOST ?? '127.0.0.1';
const { name, agent } = await pickAgent();
let dropConnections: (runId?: string) => number = () => 0;
let streamCounts: () => unknown = () => null;
const chaos = createChaos({
  agent: name,
  dropConnections: (runId) => dropConnections(runId),
  streamCounts: () => streamCounts(),
});
const resumable = createResumableApp({
  basePath: '/api',
  store: process.env.RESUMABLE_STORE || 'sqlite:.data/resumable.db',
  agent: chaos.slow(agent),
});
dropConnections = (runId) => resumable.manager.dropConnections(runId);
streamCounts = () => resumable.manager.streamCounts();
const demo = createDemoRoutes(resumable);
// Orphaned runs of a previous process are ended (`agent_lost`) before we say "ready".
await resumable.ready;

const server = serve(
  {
    // `env` carries the socket the request came on: the server reads the client's address
    // from it for its per-address limits (without it every client shares one count, and the
    // server warns about it).
    fetch: (request, env) => {
      const path = new URL(request.url).pathname;
      if (path.startsWith(CHAOS_PREFIX)) return chaos.fetch(request);
      if (path.startsWith(DEMO_PREFIX)) return demo.fetch(request);
      return resumable.app.fetch(request, env);
    },
    port,
    hostname,
  },
  (info: AddressInfo) => {
    console.log(`Resumable API on http://${hostname}:${info.port}/api (agent: ${name})`);
    process.send?.({ type: 'ready', port: info.port });
  },
);

server.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EADDRINUSE') throw error;
  // Under the supervisor (`pnpm dev`), it says so in its own words; run alone, say it here.
  if (process.send) process.send({ type: 'port-in-use', port });
  else console.error(portInUseMessage(port, 'PORT'));
  process.exit(1);
});

let closing = false;
async function shutdown() {
  if (closing) return;
  closing = true;
  // Open streams end first: clients see a body without a terminal event and resume.
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  await resumable.close();
  if ('closeAllConnections' in server) server.closeAllConnections();
  await stopped;
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
// The supervisor went away (killed, crashed): do not outlive it.
process.on('disconnect', shutdown);
