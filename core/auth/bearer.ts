import { ShortlinkError } from '../errors/shortlink-error';

// RFC 6750 b64token, after a case-insensitive "Bearer" and one or more spaces.
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Whether `token` can be sent in an Authorization header at all (provisioning checks this). */
export function isSendableToken(token: string): boolean {
  return B64TOKEN.test(token);
}

/**
 * Extracts the token from an Authorization header value, or fails with TOKEN_MISSING or
 * TOKEN_MALFORMED.
 */
export function parseBearer(header: string | null | undefined): string {
  if (header === undefined || header === null) {
    throw new ShortlinkError('TOKEN_MISSING');
  }
  const match = BEARER.exec(header);
  if (!match?.[1]) {
    throw new ShortlinkError('TOKEN_MALFORMED');
  }
  return match[1];
}
