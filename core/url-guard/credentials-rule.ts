import { block, pass, type UrlRule } from './rule';

/**
 * `http://paypal.com@evil.example/` goes to evil.example: anything before `@` only looks like a
 * host. A user name alone is enough to disguise, so any credentials are refused.
 */
export const CREDENTIALS_REFUSAL = 'credentials before the host disguise the real destination';

export const credentialsRule: UrlRule = {
  name: 'credentials',
  check: (url) =>
    Promise.resolve(url.username !== '' || url.password !== '' ? block(CREDENTIALS_REFUSAL) : pass),
};
