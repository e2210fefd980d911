import { z } from 'zod';
import { parseDurationMs } from './duration';

/** The request and answer of the Safe Browsing v4 Lookup API (`threatMatches:find`). */

export const LOOKUP_PATH = '/v4/threatMatches:find';

export interface LookupRequestOptions {
  clientId: string;
  clientVersion: string;
  threatTypes: readonly string[];
  platformTypes: readonly string[];
}

export function lookupRequestBody(url: string, options: LookupRequestOptions): string {
  return JSON.stringify({
    client: { clientId: options.clientId, clientVersion: options.clientVersion },
    threatInfo: {
      threatTypes: options.threatTypes,
      platformTypes: options.platformTypes,
      threatEntryTypes: ['URL'],
      threatEntries: [{ url }],
    },
  });
}

const lookupAnswerSchema = z.object({
  matches: z
    .array(
      z.object({
        threatType: z.string().optional(),
        cacheDuration: z.string().optional(),
      }),
    )
    .optional(),
});

// Only a plain enum name is repeated to the user; anything else a server sends is not echoed.
const THREAT_TYPE = /^[A-Z][A-Z0-9_]{0,63}$/;

type LookupAnswer =
  { kind: 'threat'; threatType: string | null; cacheMs: number | null } | { kind: 'clean' };

/** Reads an answer body; null when it is not the API's shape. */
export function readLookupAnswer(body: unknown): LookupAnswer | null {
  const parsed = lookupAnswerSchema.safeParse(body);
  if (!parsed.success) return null;
  const matches = parsed.data.matches ?? [];
  const [first] = matches;
  if (!first) return { kind: 'clean' };
  const durations = matches
    .map((match) => parseDurationMs(match.cacheDuration))
    .filter((ms): ms is number => ms !== null);
  return {
    kind: 'threat',
    threatType:
      first.threatType !== undefined && THREAT_TYPE.test(first.threatType)
        ? first.threatType
        : null,
    cacheMs: durations.length > 0 ? Math.min(...durations) : null,
  };
}
