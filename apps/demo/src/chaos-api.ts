/** Calls the demo server's chaos endpoints (`server/chaos.ts`). Demo-only, never in the kit. */

export interface ChaosState {
  pid: number;
  startedAt: number;
  /** Extra delay the server adds before each event it produces, in ms. */
  delayMs: number;
  agent: string;
}

// The real fetch: chaos requests must work while the page simulates being offline
// (the server is still there; only "the network" is gone).
const request = (path: string, body?: unknown) =>
  fetch(`/api/__chaos/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? undefined : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

export const chaos = {
  async state(): Promise<ChaosState | null> {
    const response = await request('state').catch(() => null);
    return response?.ok ? ((await response.json()) as ChaosState) : null;
  },
  /** Closes the open event streams server-side (of one run, or all): clients must resume. */
  async cut(runId?: string): Promise<number> {
    const response = await request('cut', { runId });
    const body = (await response.json()) as { dropped?: number };
    return body.dropped ?? 0;
  },
  /** Kills the server process mid-whatever; the supervisor starts it again. */
  async restart(): Promise<void> {
    await request('restart', {});
  },
  async slow(delayMs: number): Promise<void> {
    await request('slow', { delayMs });
  },
};
