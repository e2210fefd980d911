/** An error's message, also for errors from another realm (instanceof Error fails there). */
export function messageOf(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'message' in error) {
    return String(error.message);
  }
  return String(error);
}
