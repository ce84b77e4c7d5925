import { isTerminalEvent } from '@resumable/protocol';

/** Whether a stored event's JSON is a terminal event; most are not, and skip the parse. */
export function isTerminalJson(json: string): boolean {
  if (!json.includes('"RUN_FINISHED"') && !json.includes('"RUN_ERROR"')) return false;
  try {
    return isTerminalEvent(JSON.parse(json) as { type: string });
  } catch {
    return false;
  }
}
