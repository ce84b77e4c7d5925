/** Browser-side tools as the app declares them (the runner lives in `browser-tools.ts`, loaded on demand). */

/** A tool the agent may call that runs in the page (`client_tool` interrupts). */
export interface BrowserTool {
  /** Told to the model. */
  description?: string;
  /** JSON Schema of the arguments, told to the model. @default { type: 'object' } */
  parameters?: unknown;
  /** Runs the tool; its return value (JSON) is the answer, a throw answers `{error}`. */
  execute(args: never): unknown;
  /**
   * Safe to run twice: after a reload cut it mid-run, it runs again by itself. Otherwise
   * the user is asked (run again, or cancel). @default false
   */
  idempotent?: boolean;
}

/** The browser tools a chat declares, by the name the model calls them. */
export type BrowserTools = Record<string, BrowserTool>;

/** The `tools` of a `RunAgentInput` for these browser tools. */
export function toolDeclarations(
  tools: BrowserTools,
): { name: string; description: string; parameters: unknown }[] {
  return Object.entries(tools).map(([name, t]) => ({
    name,
    description: t.description ?? '',
    parameters: t.parameters ?? { type: 'object' },
  }));
}
