/**
 * A `fetch` for tests whose matching responses' bodies can be held: while held, what the
 * server sends is kept; released, it is delivered as ONE chunk (one network read, so one
 * batch for the client's reader). A device whose thread stream was held while another
 * device answered then hears `run_started` and `run_ended` of a run together — what a
 * busy or throttled page does with a run that finished quickly — deterministically.
 */
export class StreamGate {
  private held = false;
  private readonly flushers = new Set<() => void>();

  constructor(private readonly matches: (url: string) => boolean) {}

  hold(): void {
    this.held = true;
  }

  /** Delivers everything held, one chunk per held stream, and stops holding. */
  release(): void {
    this.held = false;
    for (const flush of this.flushers) flush();
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!this.matches(url) || response.body === null) return response;
    const reader = response.body.getReader();
    const buffered: Uint8Array[] = [];
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let ended = false;
    const flush = () => {
      if (this.held) return;
      if (ended) this.flushers.delete(flush);
      if (buffered.length === 0) {
        if (ended) controller.close();
        return;
      }
      const size = buffered.reduce((n, b) => n + b.byteLength, 0);
      const one = new Uint8Array(size);
      let at = 0;
      for (const b of buffered.splice(0)) {
        one.set(b, at);
        at += b.byteLength;
      }
      controller.enqueue(one);
      if (ended) controller.close();
    };
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
        this.flushers.add(flush);
        void (async () => {
          try {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              buffered.push(value);
              flush();
            }
            // The end is held too: a held stream closes once its bytes are delivered.
            ended = true;
            flush();
          } catch (error) {
            this.flushers.delete(flush);
            controller.error(error);
          }
        })();
      },
      cancel: (reason) => {
        this.flushers.delete(flush);
        return reader.cancel(reason);
      },
    });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
