import type { ChatInterrupt } from '@resumable/hooks/core';
import type { ChatLabels } from '../labels.js';
import { PrettyJson } from '../pretty-json.js';

/** What an approval is about: the agent's message, the tool's arguments as pretty JSON. */
export function ApprovalDetails({
  interrupt: i,
  labels,
}: {
  interrupt: ChatInterrupt;
  labels: ChatLabels;
}) {
  return (
    <>
      {i.message ? <p className="rc-interrupt__message">{i.message}</p> : null}
      {i.tool ? (
        <>
          <div className="rc-interrupt__label">{labels.toolArguments}</div>
          <pre className="rc-interrupt__args">
            <PrettyJson text={i.tool.arguments} />
          </pre>
        </>
      ) : null}
    </>
  );
}
