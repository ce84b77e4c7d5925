// eventsource-parser's `source` export condition points at TypeScript files importing
// './parse.ts', which this workspace's tsc (resolving `source` for our own packages)
// rejects. `#sse-parser` maps to the real package at run time and to these declarations
// (the part of its public API we use, copied from its dist/types.d.ts) for the compiler.
export interface EventSourceMessage {
  event?: string | undefined;
  id?: string | undefined;
  data: string;
}
export interface ParserCallbacks {
  onId?: ((id: string) => void) | undefined;
  onEvent?: ((event: EventSourceMessage) => void) | undefined;
  onRetry?: ((retry: number) => void) | undefined;
  onComment?: ((comment: string) => void) | undefined;
  onError?: ((error: Error & { type: string }) => void) | undefined;
}
export interface ParserConfig extends ParserCallbacks {
  maxBufferSize?: number | undefined;
}
export interface EventSourceParser {
  feed(chunk: string): void;
  reset(options?: { consume?: boolean }): void;
}
export declare function createParser(config: ParserConfig): EventSourceParser;
