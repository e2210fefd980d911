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

/** POSTs the JSON text `body` to /echo/`name` of a fresh app, served with or without the classes. */
async function postEcho(classes: boolean, name: string, body: string) {
  const app = appUnderTest();
  const seen: Seen[] = [];
  const server = await serve(app, classes, seen);
  try {
    const { port } = server.address() as AddressInfo;
    const answer = await fetch(`http://127.0.0.1:${port}/echo/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { app, seen, port, status: answer.status, json: await answer.json() };
  } finally {
    server.close();
  }
}

describe('expressMessageClasses', () => {
  it('makes node build requests and responses that already have the app prototypes', async () => {
    const { app, seen, port, status, json } = await postEcho(true, 'ada', JSON.stringify({ n: 1 }));
    expect(status).toBe(201);
    expect(json).toEqual({ name: 'ada', body: { n: 1 }, host: `127.0.0.1:${port}` });
    expect(seen).toEqual([
      {
        requestPrototype: app.request,
        responsePrototype: app.response,
        isIncomingMessage: true,
        isServerResponse: true,
      },
    ]);
  });

  it('is what differs from a plain server, where express swaps the prototypes itself', async () => {
    const { seen, status } = await postEcho(false, 'bob', '{}');
    expect(status).toBe(201);
    expect(seen[0]?.requestPrototype).toBe(IncomingMessage.prototype);
    expect(seen[0]?.responsePrototype).toBe(ServerResponse.prototype);
  });
});
