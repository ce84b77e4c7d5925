/**
 * `pnpm server`: the reference server from environment variables.
 *
 *   PORT              8787 (0 picks a free port)
 *   HOST              127.0.0.1
 *   RESUMABLE_STORE   memory | sqlite:<path> | redis://host:port | redis+cluster://host:port,…
 *                     (default sqlite:.data/resumable.db
 *                     under the repo root; several instances can share one redis:// store)
 *   RESUMABLE_AGENT   scripted | openai | agui (default scripted)
 *   SCRIPTED_TOKENS, SCRIPTED_TPS, OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL,
 *   AGUI_UPSTREAM_URL, RESUMABLE_CORS_ORIGINS (comma-separated)
 *
 * SIGTERM / SIGINT: open streams close (clients resume), runs in flight end `agent_lost`,
 * the database is closed cleanly. When started by a parent over IPC (the demo's
 * supervisor), it sends `{type:'ready', port}` once listening.
 */
import { fileURLToPath } from 'node:url';
import { aguiProxyAgent } from './agents/agui.js';
import { openaiAgent } from './agents/openai.js';
import { scriptedAgent } from './agents/scripted.js';
import type { Agent } from './agents/types.js';
import { startServer } from './node.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

function agentFromEnv(): Agent {
  const name = process.env.RESUMABLE_AGENT ?? 'scripted';
  switch (name) {
    case 'scripted':
      return scriptedAgent();
    case 'openai':
      if (!process.env.OPENAI_API_KEY && !process.env.OPENAI_BASE_URL) {
        throw new Error('RESUMABLE_AGENT=openai needs OPENAI_API_KEY (and/or OPENAI_BASE_URL)');
      }
      return openaiAgent();
    case 'agui':
      if (!process.env.AGUI_UPSTREAM_URL) {
        throw new Error('RESUMABLE_AGENT=agui needs AGUI_UPSTREAM_URL');
      }
      return aguiProxyAgent();
    default:
      throw new Error(`RESUMABLE_AGENT must be scripted, openai or agui, got "${name}"`);
  }
}

async function main(): Promise<void> {
  const store = process.env.RESUMABLE_STORE ?? `sqlite:${repoRoot}.data/resumable.db`;
  const origins = (process.env.RESUMABLE_CORS_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  const server = await startServer({
    port: Number(process.env.PORT ?? 8787),
    hostname: process.env.HOST ?? '127.0.0.1',
    store,
    agent: agentFromEnv(),
    ...(origins.length > 0 ? { cors: { origins } } : {}),
  });
  console.log(`resumable server listening on ${server.url} (store ${store})`);
  process.send?.({ type: 'ready', port: server.port, url: server.url });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: closing streams and the store…`);
    await server.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
