import { IncomingMessage, ServerResponse, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { expressMessageClasses } from '../../gateway-http/express-message-classes';

interface Seen {
  requestPrototype: unknown;
  responsePrototype: unknown;
  isIncomingMessage: boolean;
  isServerResponse: boolean;
}

/** A server for `app` that records, before express sees them, what node constructed. */
async function serve(app: express.Express, classes: boolean, seen: Seen[]): Promise<Server> {
  const server = createServer({ ...(classes && expressMessageClasses(app)) }, (req, res) => {
    seen.push({
      requestPrototype: Object.getPrototypeOf(req),
      responsePrototype: Object.getPrototypeOf(res),
      isIncomingMessage: req instanceof IncomingMessage,
      isServerResponse: res instanceof ServerResponse,
    });
    app(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function appUnderTest(): express.Express {
  const app = express();
  app.post('/echo/:name', express.json(), (req, res) => {
    res.status(201).json({ name: req.params.name, body: req.body as unknown, host: req.host });
  });
  return app;
}

describe('expressMessageClasses', () => {
  it('makes node build requests and responses that already have the app prototypes', async () => {
    const app = appUnderTest();
    const seen: Seen[] = [];
    const server = await serve(app, true, seen);
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/echo/ada`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ n: 1 }),
      });
      expect(answer.status).toBe(201);
      expect(await answer.json()).toEqual({
        name: 'ada',
        body: { n: 1 },
        host: `127.0.0.1:${port}`,
      });
      expect(seen).toEqual([
        {
          requestPrototype: app.request,
          responsePrototype: app.response,
          isIncomingMessage: true,
          isServerResponse: true,
        },
      ]);
    } finally {
      server.close();
    }
  });

  it('is what differs from a plain server, where express swaps the prototypes itself', async () => {
    const app = appUnderTest();
    const seen: Seen[] = [];
    const server = await serve(app, false, seen);
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/echo/bob`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(answer.status).toBe(201);
      expect(seen[0]?.requestPrototype).toBe(IncomingMessage.prototype);
      expect(seen[0]?.responsePrototype).toBe(ServerResponse.prototype);
    } finally {
      server.close();
    }
  });
});
