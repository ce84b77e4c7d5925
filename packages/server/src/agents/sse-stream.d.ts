// eventsource-parser's `source` export condition points at TypeScript files importing
// './parse.ts', which this workspace's tsc (resolving `source` for our own packages)
// rejects. `#sse-stream` maps to the real `eventsource-parser/stream` at run time and to
// these declarations (the part of its API we use, from its dist/stream.d.ts) for tsc.
export interface EventSourceMessage {
  event?: string | undefined;
  id?: string | undefined;
  data: string;
}
export interface StreamOptions {
  onError?: ('terminate' | ((error: Error) => void)) | undefined;
  onRetry?: ((retry: number) => void) | undefined;
  onComment?: ((comment: string) => void) | undefined;
}
export declare class EventSourceParserStream extends TransformStream<string, EventSourceMessage> {
  constructor(options?: StreamOptions);
}
