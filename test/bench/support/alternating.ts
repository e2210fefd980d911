/** A full collection when the process runs with --expose-gc: no earlier phase's garbage. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * `rounds` alternating rounds (a, b, a, b, ...), each after a full collection, so both sides
 * see the same drift of a shared machine; what each side measured, round by round. For an
 * in-process pair measuring anything; load targets use `alternate` (measurement.ts), which also
 * summarizes their rounds.
 */
export async function alternating<T>(
  rounds: number,
  a: () => Promise<T>,
  b: () => Promise<T>,
): Promise<{ a: T[]; b: T[] }> {
  const measured = { a: [] as T[], b: [] as T[] };
  for (let round = 0; round < rounds; round += 1) {
    collectGarbage();
    measured.a.push(await a());
    collectGarbage();
    measured.b.push(await b());
  }
  return measured;
}
