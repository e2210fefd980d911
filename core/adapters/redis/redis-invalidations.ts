import { randomUUID } from 'node:crypto';
import { messageOf } from '../../errors/message-of';
import type { Logger } from '../../ports/logger';
import type {
  ChangeWatch,
  ChangeWatchStatus,
  IdentityChange,
  LinkChange,
  Store,
} from '../../ports/store';
import { closeRedisClient, type RedisClient } from './redis-connection';

/** The backend's two kinds of change, each on its own channel. */
type Stream = 'link' | 'identity';
const STREAMS: readonly Stream[] = ['link', 'identity'];

/**
 * How often a publisher tells the subscribers how its change streams are doing (ms); a publisher
 * not heard from for three of these no longer counts.
 */
const INVALIDATION_HEARTBEAT_MS = 1000;

/** What travels: a change, or a publisher's report of its stream (a heartbeat). */
type Message =
  | { from: string; change: LinkChange | IdentityChange }
  | { from: string; state: ChangeWatchStatus['state']; positionAt?: number };

/** `<prefix>:invalidations:link` and `<prefix>:invalidations:identity`. */
function invalidationChannel(keyPrefix: string, stream: Stream): string {
  return `${keyPrefix}:invalidations:${stream}`;
}

interface InvalidationOptions {
  /** Start of the channels' names (default `shortlink`). */
  keyPrefix?: string;
  logger: Logger;
  /** How often a publisher reports (ms; default INVALIDATION_HEARTBEAT_MS). */
  heartbeatMs?: number;
}

type Watcher<C> = ((listener: (change: C) => void) => ChangeWatch) | undefined;

/**
 * `store` whose change streams (MONGODB_INVALIDATION=publish) also publish every change they
 * report on Redis, and, every `heartbeatMs`, how each stream is doing (its state and position),
 * for the processes that subscribe instead of following streams of their own. A publish that
 * fails (Redis away) is made good by an 'all' published before the next report: subscribers then
 * drop everything, since they missed something. Closing the store closes `client`.
 */
export function publishingInvalidations(
  store: Store,
  client: RedisClient,
  options: InvalidationOptions,
): Store {
  const prefix = options.keyPrefix ?? 'shortlink';
  const from = randomUUID();
  const heartbeatMs = options.heartbeatMs ?? INVALIDATION_HEARTBEAT_MS;
  const publishing = <C extends LinkChange | IdentityChange>(
    stream: Stream,
    watcher: Watcher<C>,
  ): Watcher<C> => {
    if (!watcher) return undefined;
    return (listener) => {
      /** A publish failed: the subscribers must drop everything once Redis answers again. */
      let lost = false;
      const publish = async (message: Omit<Message, 'from'>): Promise<boolean> => {
        try {
          await client.publish(
            invalidationChannel(prefix, stream),
            JSON.stringify({ from, ...message }),
          );
          return true;
        } catch (error) {
          lost = true;
          options.logger.debug(
            { stream, reason: messageOf(error) },
            'invalidation not published: subscribers will drop everything',
          );
          return false;
        }
      };
      const watch = watcher((change) => {
        listener(change);
        void publish({ change });
      });
      const timer = setInterval(() => {
        void (async () => {
          if (lost) {
            lost = false;
            if (!(await publish({ change: 'all' }))) return;
          }
          const status = watch.status?.();
          if (status) await publish(status);
        })();
      }, heartbeatMs);
      timer.unref();
      return {
        ...(watch.status ? { status: () => watch.status!() } : {}),
        close: async () => {
          clearInterval(timer);
          await watch.close();
        },
      };
    };
  };
  const link = publishing<LinkChange>('link', store.watchLinkChanges?.bind(store));
  const identity = publishing<IdentityChange>('identity', store.watchIdentityChanges?.bind(store));
  return {
    ...store,
    ...(link ? { watchLinkChanges: link } : {}),
    ...(identity ? { watchIdentityChanges: identity } : {}),
    close: async () => {
      await store.close();
      await closeRedisClient(client);
    },
  };
}

/** A publisher's last report of one stream, and when it came (Date.now). */
interface Report {
  state: ChangeWatchStatus['state'];
  positionAt?: number;
  heardAt: number;
}

/**
 * `store` whose changes are heard from Redis (MONGODB_INVALIDATION=redis), as the publishers
 * (above) republish them, instead of from change streams of its own: no stream in this process.
 * A watch's status is `open` while this process is subscribed and a publisher whose stream is
 * open reported within three heartbeats (its position: the newest any such publisher reported),
 * so the caches trust longer only then; otherwise `failed`, and the caches are back on their
 * TTLs. Every (re)subscription drops everything (changes may have been published meanwhile).
 * `client` is a connection of its own (a subscribed connection sends nothing else); closing the
 * store closes it.
 */
export function subscribedInvalidations(
  store: Store,
  client: RedisClient,
  options: InvalidationOptions,
): Store {
  const prefix = options.keyPrefix ?? 'shortlink';
  const freshMs = 3 * (options.heartbeatMs ?? INVALIDATION_HEARTBEAT_MS);
  const listeners = {
    link: new Set<(change: never) => void>(),
    identity: new Set<(change: never) => void>(),
  };
  const reports = { link: new Map<string, Report>(), identity: new Map<string, Report>() };
  const streamOf = new Map(STREAMS.map((stream) => [invalidationChannel(prefix, stream), stream]));
  let subscribed = false;
  let closed = false;

  const tell = (stream: Stream, change: LinkChange | IdentityChange) => {
    for (const listener of listeners[stream]) (listener as (c: typeof change) => void)(change);
  };

  client.on('message', (channel: string, text: string) => {
    const stream = streamOf.get(channel);
    if (!stream) return;
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return;
    }
    if ('change' in message) tell(stream, message.change);
    else if (typeof message.from === 'string') {
      reports[stream].set(message.from, {
        state: message.state,
        ...(typeof message.positionAt === 'number' ? { positionAt: message.positionAt } : {}),
        heardAt: Date.now(),
      });
    }
  });
  const subscribe = () => {
    client.subscribe(...streamOf.keys()).then(
      () => {
        if (closed) return;
        subscribed = true;
        // Whatever was published while this process was not subscribed is lost to it.
        for (const stream of STREAMS) tell(stream, 'all');
      },
      (error: unknown) =>
        options.logger.warn(
          { reason: messageOf(error) },
          'Redis invalidations: subscribing failed; the caches rely on their TTLs until it succeeds',
        ),
    );
  };
  client.on('ready', subscribe);
  client.on('close', () => {
    subscribed = false;
    for (const stream of STREAMS) reports[stream].clear();
  });
  if (client.status === 'ready') subscribe();

  const statusOf = (stream: Stream): ChangeWatchStatus => {
    if (!subscribed) return { state: 'failed' };
    const now = Date.now();
    let best: ChangeWatchStatus = { state: 'failed' };
    for (const report of reports[stream].values()) {
      if (now - report.heardAt >= freshMs) continue;
      if (report.state === 'open') {
        const positionAt = Math.max(report.positionAt ?? 0, best.positionAt ?? 0);
        best = { state: 'open', ...(positionAt > 0 ? { positionAt } : {}) };
      } else if (best.state !== 'open' && report.state === 'unavailable') {
        best = { state: 'unavailable' };
      }
    }
    return best;
  };
  const watching =
    <C>(stream: Stream) =>
    (listener: (change: C) => void): ChangeWatch => {
      const held = listener as (change: never) => void;
      listeners[stream].add(held);
      return {
        status: () => statusOf(stream),
        close: () => {
          listeners[stream].delete(held);
          return Promise.resolve();
        },
      };
    };
  return {
    ...store,
    watchLinkChanges: watching<LinkChange>('link'),
    watchIdentityChanges: watching<IdentityChange>('identity'),
    close: async () => {
      closed = true;
      await store.close();
      await closeRedisClient(client);
    },
  };
}
