import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** A fake upstream on 127.0.0.1 whose behaviour each test sets. */
export async function fakeUpstream(): Promise<{
  url: string;
  server: Server;
  handle: (handler: Handler) => void;
  requests: Array<{ headers: IncomingMessage['headers']; body: unknown }>;
}> {
  let handler: Handler = (_req, _body, res) => res.end();
  const requests: Array<{ headers: IncomingMessage['headers']; body: unknown }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      requests.push({ headers: req.headers, body: body ? JSON.parse(body) : null });
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    handle: (h) => {
      handler = h;
    },
    requests,
  };
}
