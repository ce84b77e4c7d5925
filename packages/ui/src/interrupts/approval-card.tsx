import { useId, useState } from 'react';
import { isolateName } from '../bidi-name.js';
import type { ChatLabels } from '../labels.js';
import { ApprovalDetails } from './approval-details.js';
import type { InterruptCardProps } from './card-props.js';
import { CardSection } from './card-section.js';

/**
 * Approve or deny a tool call: what will run and with which arguments, an optional reason,
 * two real buttons. The card takes focus when it appears; each answer is given once (the
 * buttons disable while it is handed over).
 */
export function ApprovalCard(props: InterruptCardProps & { labels: ChatLabels }) {
  const { interrupt: i, labels } = props;
  const title = useId();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const answer = (payload: unknown) => {
    setBusy(true);
    void Promise.resolve(props.onResolve(i.id, payload)).finally(() => setBusy(false));
  };
  const name = i.tool?.name ?? i.message ?? i.reason;
  return (
    <CardSection
      id={i.id}
      kind="approval"
      titleId={title}
      title={isolateName(labels.approvalTitle, name)}
      className={props.className}
    >
      <ApprovalDetails interrupt={i} labels={labels} />
      <label className="rc-interrupt__field" htmlFor={reasonId}>
        {labels.denyReason}
      </label>
      <input
        id={reasonId}
        className="rc-interrupt__input"
        type="text"
        value={reason}
        maxLength={500}
        onChange={(e) => setReason(e.target.value)}
      />
      <div className="rc-interrupt__actions">
        <button
          type="button"
          className="rc-button rc-button--primary"
          disabled={busy}
          onClick={() => answer({ approved: true })}
        >
          {labels.approve}
        </button>
        <button
          type="button"
          className="rc-button"
          disabled={busy}
          onClick={() =>
            answer(reason.trim() ? { approved: false, reason: reason.trim() } : { approved: false })
          }
        >
          {labels.deny}
        </button>
      </div>
    </CardSection>
  );
}
