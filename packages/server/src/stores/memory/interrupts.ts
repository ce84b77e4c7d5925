import type { InterruptAnswer, InterruptLedger } from '../types.js';

/** Copied in and out, so no caller aliases a stored payload. */
const copy = (answer: InterruptAnswer): InterruptAnswer =>
  answer.payload === undefined
    ? { ...answer }
    : { ...answer, payload: structuredClone(answer.payload) };

/** Interrupt answers in this process's memory (the `MemoryStore`'s ledger). */
export class MemoryInterruptLedger implements InterruptLedger {
  /** threadId → interruptId → answer. */
  private readonly byThread = new Map<string, Map<string, InterruptAnswer>>();

  async claim(
    threadId: string,
    runId: string,
    answers: readonly InterruptAnswer[],
  ): Promise<string | null> {
    const known = this.byThread.get(threadId) ?? new Map<string, InterruptAnswer>();
    for (const answer of answers) {
      const first = known.get(answer.interruptId);
      if (first && first.runId !== runId) return first.runId;
    }
    for (const answer of answers) {
      if (!known.has(answer.interruptId)) known.set(answer.interruptId, copy({ ...answer, runId }));
    }
    this.byThread.set(threadId, known);
    return null;
  }

  async release(threadId: string, runId: string, interruptIds: readonly string[]): Promise<void> {
    const known = this.byThread.get(threadId);
    for (const id of interruptIds) {
      if (known?.get(id)?.runId === runId) known.delete(id);
    }
  }

  /** Drops a deleted thread's answers. */
  forget(threadId: string): void {
    this.byThread.delete(threadId);
  }

  async get(threadId: string, interruptIds: readonly string[]): Promise<InterruptAnswer[]> {
    const known = this.byThread.get(threadId);
    if (!known) return [];
    return interruptIds.flatMap((id) => {
      const answer = known.get(id);
      return answer ? [copy(answer)] : [];
    });
  }
}
