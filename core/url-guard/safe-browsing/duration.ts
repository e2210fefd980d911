/** A protobuf JSON Duration (`"300s"`, `"1.5s"`) in milliseconds; null when it is not one. */
export function parseDurationMs(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const match = /^(\d{1,12})(\.\d{1,9})?s$/.exec(text);
  if (!match) return null;
  return Math.round(Number(`${match[1]}${match[2] ?? ''}`) * 1000);
}
