type QuotaGrant = { granted: true } | { granted: false; retryAfterMs: number };

/**
 * The lookup quota of one window (a minute), shared fairly between organizations: with n
 * organizations asking (in this window or the last one), each may use at most 1/(n + 1) of it.
 * The one share kept back is for an organization that has not asked yet, so however hard one
 * tenant pushes (unique URLs defeat the cache), the next one still finds lookups left. Used-up
 * lookups are never turned into "allowed": the caller answers "try again after retryAfterMs".
 */
export class FairShareQuota {
  private windowStart: number;
  private used = 0;
  private usedBy = new Map<string, number>();
  private previousTenants = new Set<string>();

  constructor(
    private readonly perWindow: number,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.windowStart = now();
  }

  /** Takes one lookup for `tenant`, or says how long until the next window. */
  take(tenant: string): QuotaGrant {
    const now = this.now();
    this.roll(now);
    const mine = this.usedBy.get(tenant) ?? 0;
    const active = new Set([...this.previousTenants, ...this.usedBy.keys(), tenant]).size;
    const share = Math.max(1, Math.floor(this.perWindow / (active + 1)));
    if (this.used >= this.perWindow || mine >= share) {
      return { granted: false, retryAfterMs: this.windowStart + this.windowMs - now };
    }
    this.used += 1;
    this.usedBy.set(tenant, mine + 1);
    return { granted: true };
  }

  private roll(now: number): void {
    if (now < this.windowStart + this.windowMs) return;
    const elapsed = Math.floor((now - this.windowStart) / this.windowMs);
    // A tenant that asked in the window just ended still counts as active in this one.
    this.previousTenants = elapsed === 1 ? new Set(this.usedBy.keys()) : new Set();
    this.windowStart += elapsed * this.windowMs;
    this.used = 0;
    this.usedBy = new Map();
  }
}
