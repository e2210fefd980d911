import type { ChangeWatch } from '../ports/store';

/**
 * How long a cached link or identity is trusted (from when it was read) while the change stream
 * that reports its changes advances, instead of CHANGE_PROPAGATION_SECONDS: a hot link or an
 * active organization is then read once a minute per process, not every few seconds.
 */
export const TRUSTED_WHILE_STREAM_ADVANCES_SECONDS = 60;

/**
 * Whether `watch` advances: it is open and has heard every change made up to less than `boundMs`
 * ago (its position, by the server's clock, against this machine's). While it does, a change
 * made elsewhere reaches the caches within `boundMs`, whatever they hold; a stream that fails,
 * stalls or falls behind stops advancing within `boundMs`, and the caches are back on their TTLs.
 * A watch that cannot tell its position never advances.
 */
export function streamAdvances(
  watch: ChangeWatch | undefined,
  boundMs: number,
  now = Date.now(),
): boolean {
  const status = watch?.status?.();
  return (
    status?.state === 'open' && status.positionAt !== undefined && now - status.positionAt < boundMs
  );
}
