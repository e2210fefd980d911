import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

/** The request and response types a node:http server constructs. */
export interface MessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/** node's message types are plain constructor functions, which a subtype may call on `this`. */
type MessageConstructor = typeof IncomingMessage | typeof ServerResponse;

/**
 * A constructor whose instances are `base` instances with exactly `prototype`: `new` makes the
 * object with that prototype and `base` initialises it, as subclassing in ES5 did. (Building
 * them with `Reflect.construct(base, args, newTarget)` instead was measured slower than
 * express's prototype swap itself.)
 */
function withPrototype<T extends MessageConstructor>(base: T, prototype: object): T {
  const initialise = base as unknown as (this: object, first: unknown, second: unknown) => void;
  function Message(this: object, first: unknown, second: unknown): void {
    initialise.call(this, first, second);
  }
  Message.prototype = prototype;
  return Message as unknown as T;
}

/** Whether `base` is a plain function (callable on `this`) rather than an ES class. */
function isPlainFunction(base: MessageConstructor): boolean {
  return !/^class\b/.test(Function.prototype.toString.call(base));
}

/**
 * Request and response types for node:http whose objects are born with `app`'s prototypes
 * (`app.request`, `app.response`, which derive from node's own).
 *
 * express gives every request and response its app's prototypes (`Object.setPrototypeOf` in
 * `app.handle`). On the plain objects node builds, that changes their hidden class on every
 * request, which leaves V8's inline caches all over node's HTTP code and express's router
 * megamorphic: measured by `npm run bench`, it took a third to a half of the server's CPU time
 * per request on both REST routes. When the objects already have those prototypes the call
 * changes nothing.
 * Behaviour is the same either way: the prototype chain is the one express would set.
 */
export function expressMessageClasses(app: Express): MessageClasses | undefined {
  // Should a later Node make them ES classes, node's own types are used (correct, only slower).
  if (!isPlainFunction(IncomingMessage) || !isPlainFunction(ServerResponse)) return undefined;
  return {
    IncomingMessage: withPrototype(IncomingMessage, app.request),
    ServerResponse: withPrototype(ServerResponse, app.response),
  };
}
