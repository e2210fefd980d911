import type { Clock } from '../../core';

/** A clock the test moves by hand (expiry and lease tests need no waiting). */
export interface ManualClock extends Clock {
  advanceSeconds(seconds: number): void;
}

export function manualClock(start = new Date('2026-06-01T12:00:00.000Z')): ManualClock {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advanceSeconds: (seconds) => {
      now += seconds * 1000;
    },
  };
}

/**
 * Malformed keys of every kind the contract names, with the message the core gives. `http`
 * says whether node's HTTP client can send it as a header value (it refuses characters other
 * than tab, 0x20-0x7E and 0x80-0xFF).
 */
export const MALFORMED_KEYS: Array<{ kind: string; key: string; message: RegExp; http: boolean }> =
  [
    { kind: 'empty', key: '', message: /must not be empty/, http: true },
    { kind: 'longer than 255', key: 'k'.repeat(256), message: /at most 255/, http: true },
    { kind: 'a space', key: 'two words', message: /visible ASCII/, http: true },
    { kind: 'a control character (tab)', key: 'tab\there', message: /visible ASCII/, http: true },
    { kind: 'a control character (0x01)', key: 'ctl\u0001', message: /visible ASCII/, http: false },
    { kind: 'DEL (0x7F)', key: 'del\u007f', message: /visible ASCII/, http: false },
    { kind: 'a non-ASCII character (é)', key: 'clé', message: /visible ASCII/, http: true },
    { kind: 'a non-ASCII character (emoji)', key: 'key-🔑', message: /visible ASCII/, http: false },
  ];

/** The longest valid key: 255 visible ASCII characters, every one of them used. */
export const LONGEST_KEY = Array.from({ length: 255 }, (_, i) =>
  String.fromCharCode(0x21 + (i % 94)),
).join('');
