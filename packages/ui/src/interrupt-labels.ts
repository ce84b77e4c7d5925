/** The words of the interrupt cards (approvals, questions, browser tools), for translation. */
export interface InterruptLabels {
  /** Heading of an approval card; `tool` is the tool's name. @default 'Allow <tool>?' */
  approvalTitle: (tool: string) => string;
  /** The approval card's button that lets the tool run. @default 'Approve' */
  approve: string;
  /**
   * The approval card's button that refuses the tool (with the optional reason).
   * @default 'Deny'
   */
  deny: string;
  /** Label of the optional reason field beside Deny. @default 'Reason (optional)' */
  denyReason: string;
  /** Heading of a question card. @default 'The assistant asks' */
  questionTitle: string;
  /** Label of a free-form answer field. @default 'Your answer' */
  answerInput: string;
  /** The question card's submit button. @default 'Answer' */
  submitAnswer: string;
  /** Cancels a question or an interrupted tool (the agent goes on without it). @default 'Cancel' */
  cancelInterrupt: string;
  /**
   * A browser tool running in this page; `tool` is its name.
   * @default 'Running <tool> in this page…'
   */
  toolRunningHere: (tool: string) => string;
  /**
   * A browser tool waiting for a page that has it (this one does not, or not yet).
   * @default 'Waiting for <tool> to run in the page'
   */
  toolWaiting: (tool: string) => string;
  /**
   * A browser tool cut by a reload that is not safe to run twice: asks whether to run it again.
   * @default '<tool> was interrupted by a reload. It may have run already: run it again?'
   */
  toolInterrupted: (tool: string) => string;
  /** Runs such a tool again. @default 'Run again' */
  rerunTool: string;
  /** What an answered approval shows in the transcript once it was approved. @default 'Approved' */
  approved: string;
  /**
   * What an answered approval shows once it was denied, with the reason given (null when
   * none was). @default 'Denied: <reason>' or 'Denied'
   */
  denied: (reason: string | null) => string;
  /** What an interrupt shows in the transcript once it was cancelled. @default 'Cancelled' */
  cancelledAnswer: string;
  /**
   * What an answered question (or browser tool) shows in the transcript: `answer` is the
   * answer's text, or its JSON when it is not a string. @default 'Answered: <answer>'
   */
  answered: (answer: string) => string;
  /**
   * Answered by another tab or device whose answer is not known here.
   * @default 'Answered in another tab'
   */
  answeredElsewhere: string;
  /**
   * Answered by another tab or device, with its answer (`summary`: "Approved", …).
   * @default '<summary> (in another tab)'
   */
  answeredElsewhereAs: (summary: string) => string;
  /**
   * After the answer's summary: given here, not yet taken by the server (offline, or in
   * flight: it goes out on its own). @default 'waiting to send'
   */
  answerQueued: string;
  /**
   * After the answer's summary: kept until the run's other open interrupts are answered too,
   * then sent with them. @default 'kept until the other questions are answered'
   */
  answerDraft: string;
  /**
   * Announced (politely) when the assistant needs an answer; `what` is the card's heading.
   * @default 'The assistant needs your answer: <what>'
   */
  needsAnswer: (what: string) => string;
}

/**
 * The English words of every {@link InterruptLabels} key; `DEFAULT_LABELS` includes them.
 */
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
