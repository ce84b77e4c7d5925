import type { Message } from '@resumable/protocol';

/**
 * A message without the fold's run-local marks (`streaming`, `ended`): what a client's
 * prompt is stored as — those marks are the server's to set, never a request's.
 */
export function withoutRunMarks(message: Message): Message {
  const {
    streaming: _s,
    ended: _e,
    ...rest
  } = message as Message & { streaming?: unknown; ended?: unknown };
  return rest as Message;
}

/**
 * A run's message as history keeps it: the fold's `streaming` flag is run-local and goes;
 * `ended` (`stopped`, `error`: the run ended while the message was open) stays, so every
 * device that reads the history shows a stopped answer as stopped, as the device that
 * followed it live does. Agents get history without it (`planBranch`).
 */
export function historyMessage(message: Message): Message {
  const ended = (message as { ended?: unknown }).ended;
  const rest = withoutRunMarks(message);
  return (ended === 'stopped' || ended === 'error' ? { ...rest, ended } : rest) as Message;
}
