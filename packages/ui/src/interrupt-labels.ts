/** The words of the interrupt cards (approvals, questions, browser tools), for translation. */
export interface InterruptLabels {
  /** Heading of an approval card; `tool` is the tool's name. */
  approvalTitle: (tool: string) => string;
  /** @default 'Approve' */
  approve: string;
  /** @default 'Deny' */
  deny: string;
  /** Label of the optional reason field beside Deny. @default 'Reason (optional)' */
  denyReason: string;
  /** Heading of a question card. @default 'The assistant asks' */
  questionTitle: string;
  /** Label of a free-form answer field. @default 'Your answer' */
  answerInput: string;
  /** @default 'Answer' */
  submitAnswer: string;
  /** Cancels a question or an interrupted tool (the agent goes on without it). @default 'Cancel' */
  cancelInterrupt: string;
  /** A browser tool running in this page; `tool` is its name. */
  toolRunningHere: (tool: string) => string;
  /** A browser tool waiting for a page that has it (this one does not, or not yet). */
  toolWaiting: (tool: string) => string;
  /** A browser tool cut by a reload that is not safe to run twice. */
  toolInterrupted: (tool: string) => string;
  /** Runs such a tool again. @default 'Run again' */
  rerunTool: string;
  /** Answered states shown in the transcript. */
  approved: string;
  denied: (reason: string | null) => string;
  cancelledAnswer: string;
  answered: (answer: string) => string;
  /** Answered by another tab or device whose answer is not known here. */
  answeredElsewhere: string;
  /** Answered by another tab or device, with its answer (`summary`: "Approved", …). */
  answeredElsewhereAs: (summary: string) => string;
  /**
   * After the answer's summary: given here, not yet taken by the server (offline, or in
   * flight: it goes out on its own); or kept until the run's other questions are answered.
   */
  answerQueued: string;
  answerDraft: string;
  /** Announced (politely) when the assistant needs an answer; `what` is the card's heading. */
  needsAnswer: (what: string) => string;
}

export const DEFAULT_INTERRUPT_LABELS: InterruptLabels = {
  approvalTitle: (tool) => `Allow ${tool}?`,
  approve: 'Approve',
  deny: 'Deny',
  denyReason: 'Reason (optional)',
  questionTitle: 'The assistant asks',
  answerInput: 'Your answer',
  submitAnswer: 'Answer',
  cancelInterrupt: 'Cancel',
  toolRunningHere: (tool) => `Running ${tool} in this page…`,
  toolWaiting: (tool) => `Waiting for ${tool} to run in the page`,
  toolInterrupted: (tool) =>
    `${tool} was interrupted by a reload. It may have run already: run it again?`,
  rerunTool: 'Run again',
  approved: 'Approved',
  denied: (reason) => (reason ? `Denied: ${reason}` : 'Denied'),
  cancelledAnswer: 'Cancelled',
  answered: (answer) => `Answered: ${answer}`,
  answeredElsewhere: 'Answered in another tab',
  answeredElsewhereAs: (summary) => `${summary} (in another tab)`,
  answerQueued: 'waiting to send',
  answerDraft: 'kept until the other questions are answered',
  needsAnswer: (what) => `The assistant needs your answer: ${what}`,
};
