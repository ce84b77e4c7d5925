import type { ChatInterrupt, InterruptControls } from '@resumable/hooks/core';
import { createContext, useContext } from 'react';
import type { ChatLabels } from '../labels.js';
import { InterruptCard } from './interrupt-card.js';

/** What the transcript's interrupt slots need: the interrupts, their answers, the words. */
export type InterruptsValue = Partial<InterruptControls> & { labels: ChatLabels };

/** Provided by `<ResumableChatView>`; a message renders the interrupts anchored to it. */
export const InterruptsContext = createContext<InterruptsValue | null>(null);

/** The interrupts that belong after message `messageId` (its tool call, or its run's question). */
export function InterruptSlot({ messageId }: { messageId: string }) {
  const value = useContext(InterruptsContext);
  const mine = value?.interrupts?.filter((i) => i.anchor === messageId) ?? [];
  return mine.length === 0 ? null : <InterruptCards interrupts={mine} value={value!} />;
}

/** The interrupts no message of the transcript holds (asked by a run not shown here). */
export function UnanchoredInterrupts({ messageIds }: { messageIds: ReadonlySet<string> }) {
  const value = useContext(InterruptsContext);
  const rest =
    value?.interrupts?.filter(
      (i) => (i.anchor === null || !messageIds.has(i.anchor)) && i.status === 'open',
    ) ?? [];
  return rest.length === 0 ? null : <InterruptCards interrupts={rest} value={value!} />;
}

function InterruptCards(props: { interrupts: readonly ChatInterrupt[]; value: InterruptsValue }) {
  const { resolve, cancel, rerunTool, labels } = props.value;
  return (
    <>
      {props.interrupts.map((i) => (
        <InterruptCard
          key={i.id}
          interrupt={i}
          onResolve={resolve ?? noop}
          onCancel={cancel ?? noop}
          onRerun={rerunTool ?? noop}
          labels={labels}
        />
      ))}
    </>
  );
}

const noop = async () => {};
