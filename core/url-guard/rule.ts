import type { UrlGuard, UrlVerdict } from '../ports/url-guard';

/** One rule of the anti-phishing chain: it has the port's shape, plus a name for logs. */
export interface UrlRule extends UrlGuard {
  readonly name: string;
}

export const pass: UrlVerdict = { blocked: false };

export const block = (reason: string): UrlVerdict => ({ blocked: true, reason });

/** A refusal because a check could not decide now (fail-closed); see UrlVerdict. */
export const blockUndecided = (reason: string): UrlVerdict => ({
  blocked: true,
  reason,
  undecided: true,
});
