import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

/** The request and response types a node:http server constructs. */
export interface MessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/** A constructor that builds `base` instances whose prototype is exactly `prototype`. */
function withPrototype<T extends abstract new (...args: never[]) => object>(
  base: T,
  prototype: object,
): T {
  function Message(...args: unknown[]): object {
    return Reflect.construct(base, args, Message) as object;
  }
  Message.prototype = prototype;
  return Message as unknown as T;
}

/**
 * Request and response types for node:http whose objects are born with `app`'s prototypes
 * (`app.request`, `app.response`, which derive from node's own).
 *
 * express gives every request and response its app's prototypes (`Object.setPrototypeOf` in
 * `app.handle`). On the plain objects node builds, that changes their hidden class on every
 * request, which leaves V8's inline caches all over node's HTTP code and express's router
 * megamorphic: measured by `npm run bench`, it was about 40 % of the server's CPU time per
 * followed link. When the objects already have those prototypes the call changes nothing.
 * Behaviour is the same either way: the prototype chain is the one express would set.
 */
export function expressMessageClasses(app: Express): MessageClasses {
  return {
    IncomingMessage: withPrototype(IncomingMessage, app.request),
    ServerResponse: withPrototype(ServerResponse, app.response),
  };
}
