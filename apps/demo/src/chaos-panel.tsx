import { memo, useEffect, useState } from 'react';
import { type ChaosState, chaos } from './chaos-api.js';
import { goOffline, goOnline, onWire } from './wire.js';

/** The "try to break it" buttons. Each one does to the page what real life does to it. */
export const ChaosPanel = memo(function ChaosPanel({ runId }: { runId: string | null }) {
  const [server, setServer] = useState<ChaosState | null>(null);
  const [offlineFor, setOfflineFor] = useState(5);
  const [offlineUntil, setOfflineUntil] = useState<number | null>(null);
  const [now, setNow] = useState(Date.now());
  const [busy, setBusy] = useState<string | null>(null);
  // What the last button did, said where the buttons are (the devtools show the client's side).
  const [lastAction, setLastAction] = useState<string | null>(null);

  // Poll the server's facts: the pid changes after a restart, `null` while it is down.
  useEffect(() => {
    let alive = true;
    const poll = async () => {
      const next = await chaos.state();
      if (alive) setServer(next);
    };
    void poll();
    const timer = setInterval(poll, 1000);
    // Back online: say at once that the server is there, not a second later.
    window.addEventListener('online', poll);
    return () => {
      alive = false;
      clearInterval(timer);
      window.removeEventListener('online', poll);
    };
  }, []);

  useEffect(() => {
    if (offlineUntil === null) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [offlineUntil]);

  useEffect(
    () =>
      onWire((event) => {
        if (event.kind === 'network' && event.online) setOfflineUntil(null);
      }),
    [],
  );

  const act = async (name: string, action: () => Promise<void>) => {
    setBusy(name);
    try {
      await action();
    } catch (error) {
      setLastAction(`"${name}" failed: ${String(error)}`);
    } finally {
      setBusy(null);
    }
  };

  const secondsLeft =
    offlineUntil === null ? 0 : Math.max(0, Math.ceil((offlineUntil - now) / 1000));
  const slow = (server?.delayMs ?? 0) > 0;

  return (
    <section className="demo-panel" aria-labelledby="chaos-title">
      <h2 id="chaos-title">Try to break it</h2>
      <p className="demo-hint">Start a long answer, then:</p>
      <div className="demo-chaos">
        <button
          type="button"
          disabled={busy !== null}
          onClick={() =>
            act('cut', async () => {
              const dropped = await chaos.cut(runId ?? undefined);
              setLastAction(`the server cut ${dropped} open stream(s)`);
            })
          }
        >
          Cut the connection now
        </button>
        <div className="demo-row">
          <button
            type="button"
            className="demo-grow"
            onClick={() => {
              if (offlineUntil !== null) {
                goOnline();
                return;
              }
              setLastAction(`offline for ${offlineFor} s`);
              setOfflineUntil(Date.now() + offlineFor * 1000);
              setNow(Date.now());
              goOffline(offlineFor);
            }}
          >
            {offlineUntil === null ? 'Go offline' : `Back online now (${secondsLeft} s left)`}
          </button>
          <label className="demo-inline">
            for
            <input
              type="number"
              min={1}
              max={120}
              value={offlineFor}
              aria-label="Offline seconds"
              onChange={(event) => setOfflineFor(Math.max(1, Number(event.target.value) || 1))}
            />
            s
          </label>
        </div>
        <button type="button" onClick={() => location.reload()}>
          Reload the page
        </button>
        <button
          type="button"
          disabled={busy !== null}
          onClick={() =>
            act('restart', async () => {
              setLastAction('restarting the server process');
              await chaos.restart();
            })
          }
        >
          Restart the server
        </button>
        <button
          type="button"
          aria-pressed={slow}
          disabled={busy !== null}
          onClick={() =>
            act('slow', async () => {
              await chaos.slow(slow ? 0 : 250);
              setLastAction(slow ? 'normal speed' : 'slow stream (+250 ms/event)');
              setServer(await chaos.state());
            })
          }
        >
          {slow ? 'Normal speed' : 'Slow the stream'}
        </button>
      </div>
      {lastAction ? <p className="demo-hint">Last: {lastAction}</p> : null}
      <p className="demo-server" aria-live="polite">
        {server
          ? `Server pid ${server.pid} · agent ${server.agent}${slow ? ` · +${server.delayMs} ms/event` : ''}`
          : 'Server unreachable (restarting, or you are offline)'}
      </p>
    </section>
  );
});
