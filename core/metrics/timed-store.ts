import type { IdentityStore } from '../ports/identity-store';
import type { LinkStore } from '../ports/link-store';
import type { Store } from '../ports/store';
import type { CallTimer, ShortlinkMetrics } from './shortlink-metrics';

type AsyncMethod = (...args: never[]) => Promise<unknown>;
type AsyncMethodNames<T> = {
  [K in keyof T]: T[K] extends AsyncMethod ? K : never;
}[keyof T] &
  string;

/** `method` of `target`, timed into `timer` whether it resolves or rejects. */
function timed<F extends AsyncMethod>(target: object, method: F, timer: CallTimer): F {
  const wrapper = (...args: Parameters<F>): Promise<unknown> => {
    const startedAt = performance.now();
    const done = () => timer.observe(startedAt);
    const call: Promise<unknown> = Reflect.apply(method, target, args);
    call.then(done, done);
    return call;
  };
  return wrapper as unknown as F;
}

/** A copy of `target` with the named methods timed as `<prefix>.<method>`, the rest bound. */
function timedPort<T extends object>(
  target: T,
  prefix: string,
  methods: ReadonlyArray<AsyncMethodNames<T>>,
  metrics: ShortlinkMetrics,
): T {
  const port = {} as Record<string, unknown>;
  for (const name of methods) {
    const method = target[name] as AsyncMethod;
    port[name] = timed(target, method, metrics.storeCall(`${prefix}.${name}`));
  }
  return port as T;
}

const IDENTITY_METHODS = [
  'findUserIdByTokenHash',
  'findOrganizationByKeyHash',
  'findOrganizationById',
  'isMember',
  'findGroup',
  'listLinkDomains',
  'saveOrganization',
  'insertOrganization',
  'saveGroup',
  'saveUser',
  'saveToken',
  'saveMembership',
  'findUserById',
  'removeToken',
  'removeTokensOfUser',
] as const satisfies ReadonlyArray<AsyncMethodNames<IdentityStore>>;

/** The link port timed. */
function timedLinks(links: LinkStore, metrics: ShortlinkMetrics): LinkStore {
  return timedPort(
    links,
    'links',
    [
      'insert',
      'insertCompleting',
      'findByAlias',
      'listDomains',
      'findById',
      'list',
      'setDisabled',
      'update',
      'takeVisit',
      'history',
      'countByDomain',
    ],
    metrics,
  );
}

/**
 * The store with every call timed into `shortlink_store_call_duration_seconds{operation}`
 * (`links.insert`, `identities.findGroup`, ...): a decorator over the port, so procedures and
 * adapters stay unaware of metrics. The runtime puts it under the caches, so it times the calls
 * that reach the backend, not cache hits.
 */
export function timedStore(store: Store, metrics: ShortlinkMetrics): Store {
  const watch = store.watchIdentityChanges?.bind(store);
  const watchLinks = store.watchLinkChanges?.bind(store);
  return {
    ...(watch ? { watchIdentityChanges: watch } : {}),
    ...(watchLinks ? { watchLinkChanges: watchLinks } : {}),
    kind: store.kind,
    identities: timedPort(store.identities, 'identities', IDENTITY_METHODS, metrics),
    links: timedLinks(store.links, metrics),
    idempotency: timedPort(
      store.idempotency,
      'idempotency',
      ['claim', 'complete', 'release', 'renew'],
      metrics,
    ),
    // Counted visits reach the store once a second per process, off the requests' path: neither
    // cached nor timed per call.
    ...(store.visits ? { visits: store.visits } : {}),
    ping: timed(store, () => store.ping(), metrics.storeCall('ping')),
    flush: timed(store, () => store.flush(), metrics.storeCall('flush')),
    close: () => store.close(),
  };
}
