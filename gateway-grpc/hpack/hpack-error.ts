/** A header block (or the frames carrying it) that an HTTP/2 peer must refuse as a connection error. */
export class HpackError extends Error {
  override readonly name = 'HpackError';
}
