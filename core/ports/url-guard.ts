import type { Organization } from './identity-store';

export type UrlVerdict = { blocked: false } | { blocked: true; reason: string };

export interface UrlGuardContext {
  organization: Organization;
}

/** Decides whether a long URL may be shortened (the anti-phishing check, code 18). */
export interface UrlGuard {
  check(url: URL, context: UrlGuardContext): Promise<UrlVerdict>;
}
