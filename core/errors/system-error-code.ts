/**
 * A system error's code (`EADDRINUSE`, `ENOENT`, ...) when `error` carries one as a string;
 * read by duck typing, since node's errors may come from another realm, where instanceof fails.
 */
export function systemErrorCode(error: unknown): string | undefined {
  const code =
    typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof code === 'string' ? code : undefined;
}
