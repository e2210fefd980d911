/** Reading untrusted input (a decoded body) before any schema has parsed it. */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field of a decoded body, read only when it is the object's own (never its prototype's). */
export function ownField(body: unknown, name: string): unknown {
  return isPlainObject(body) && Object.hasOwn(body, name) ? body[name] : undefined;
}

/** A required field counts as missing when absent, null or empty. */
export const isAbsent = (value: unknown): boolean =>
  value === undefined || value === null || value === '';
