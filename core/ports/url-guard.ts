import type { Organization } from './identity-store';

/**
 * A rule's answer. `undecided` marks a refusal made because a check could not run now (the
 * reputation service gave no verdict and the fail mode is `closed`): a retry may pass, so it is
 * not an answer to keep for an idempotency key. `rule` names the rule that refused, when the
 * guard knows it (the chain does): the operator's rescan records it as the reason it disabled a
 * link; nothing else depends on it.
 */
export type UrlVerdict =
  { blocked: false } | { blocked: true; reason: string; undecided?: true; rule?: string };

export interface UrlGuardContext {
  organization: Organization;
}

/** Decides whether a long URL may be shortened (the anti-phishing check, URL_BLOCKED). */
export interface UrlGuard {
  check(url: URL, context: UrlGuardContext): Promise<UrlVerdict>;
}
