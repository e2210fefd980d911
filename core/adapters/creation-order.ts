/**
 * A new link's creation time in the embedded stores (LMDB, memory): `createdAt`, or the previous
 * link's (`previousMs`) when that is later, which happens when a create read its clock before
 * another create committed. So creation times never decrease with ids there, and a listing newest
 * first by (createdAt, id) is the listing by id, which their indexes serve.
 */
export function notBefore(createdAt: Date, previousMs: number | undefined): Date {
  return previousMs !== undefined && previousMs > createdAt.getTime()
    ? new Date(previousMs)
    : createdAt;
}
