/**
 * The deadline for waits on other processes (servers, redis-server, a failover): generous, the
 * machine is shared and busy.
 */
export const LONG_WAIT_MS = 30_000;

/** Waits until `condition` holds, polling; fails after a generous deadline (machine under load). */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
