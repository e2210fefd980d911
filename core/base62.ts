/**
 * The 62 characters of generated aliases and of the random part of tokens and organization keys:
 * safe in a URL path and in an Authorization header without any escaping.
 */
export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
