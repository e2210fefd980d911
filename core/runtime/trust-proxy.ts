import proxyaddr from 'proxy-addr';

/** Whether the hop at `hop` (0: the connection's peer) with `address` is a trusted proxy. */
export type TrustProxy = (address: string, hop: number) => boolean;

const HINT =
  'give the number of proxies in front of the service (for example 1) or their addresses or subnets (for example "loopback, 10.0.0.0/8")';

/**
 * TRUST_PROXY as one function both gateways use, so REST (`X-Forwarded-For`) and gRPC
 * (`x-forwarded-for` metadata) take the same address as the client's: the first one, counted
 * from the connection's peer, that is not a trusted proxy. A hop count trusts that many hops;
 * a list (proxy-addr's names `loopback`, `linklocal`, `uniquelocal`, addresses, subnets) trusts
 * those addresses. `true` is refused: it trusts every hop, so the client-written leftmost value
 * would be taken and a client could pick its own address (and so its own failure budget).
 */
export function compileTrustProxy(value: string): TrustProxy {
  const text = value.trim();
  if (/^true$/i.test(text)) throw new Error(`TRUST_PROXY=true is refused: ${HINT}`);
  if (/^false$/i.test(text)) return () => false;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    return (_address, hop) => hop < hops;
  }
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  try {
    return proxyaddr.compile(entries);
  } catch (error) {
    throw new Error(`TRUST_PROXY: ${(error as Error).message}; ${HINT}`, { cause: error });
  }
}
