import { ServerResponse, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * Sends to `onRequest` the two requests node would otherwise answer outside the service's rules:
 * - an Expect other than 100-continue: without a listener node answers a bare 417 itself. RFC
 *   9110 lets a server ignore an expectation it does not know, so the request is served as any
 *   other;
 * - CONNECT: without a listener node drops the connection unanswered. It is answered like any
 *   method the server does not serve, then the connection is closed.
 */
export function serveUnusualRequests(
  server: Server,
  onRequest: RequestListener,
  Response: typeof ServerResponse = ServerResponse,
): void {
  server.on('checkExpectation', onRequest);
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    // Its usual target, host:port, is no path of this server: routed as OPTIONS * is, to a 404.
    if (!req.url?.startsWith('/')) req.url = '*';
    const res = new Response(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.once('finish', () => {
      res.detachSocket(socket as Socket);
      // Destroyed once the answer is written, not just ended: node's timeouts no longer watch a
      // socket it handed over for CONNECT, so one whose client never closes would stay open.
      (socket as Socket).destroySoon();
    });
    onRequest(req, res);
  });
}
