import { useState } from 'react';

/**
 * "Start a run from the server": asks the demo server to start a run in this thread with no
 * client attached (`POST /api/demo/threads/{id}/server-run`, what a scheduled job or a
 * webhook does with `startServerRun`). Every open tab and device on the thread sees it
 * appear live through the thread event stream, without reloading.
 */
export function ServerRunButton(props: {
  threadId: string | null;
  token: string | null;
  disabled: boolean;
}) {
  const { threadId, token, disabled } = props;
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const start = async () => {
    if (!threadId || !token) return;
    setBusy(true);
    setProblem(null);
    try {
      const response = await fetch(`/api/demo/threads/${encodeURIComponent(threadId)}/server-run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ text: 'A scheduled job: summarize this conversation so far.' }),
      });
      if (!response.ok) {
        const body = (await response.json().catch(() => null)) as {
          error?: { message?: string };
        } | null;
        setProblem(body?.error?.message ?? `the server answered ${response.status}`);
      }
    } catch (error) {
      setProblem(String(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        className="demo-server-run"
        disabled={!threadId || !token || disabled || busy}
        title={threadId ? undefined : 'Send a first prompt: the server needs a thread'}
        onClick={() => void start()}
      >
        Start a run from the server
      </button>
      {problem ? (
        <span role="alert" className="demo-server-run__problem">
          {problem}
        </span>
      ) : null}
    </>
  );
}
