import { z } from 'zod';
import { authenticate } from '../auth/authenticate';
import type { CoreContext } from '../context';
import { requireObjectBody } from './require-object-body';
import { resolveOrganization } from '../organizations/resolve-organization';
import { ProcedureBuilder } from '../procedure/procedure';
import { limitPerToken } from '../rate-limit/limit-per-token';
import { argumentInvalid } from './link-reference';

/**
 * The stages every procedure that reads or governs links starts with, in the create's order:
 * token (TOKEN_MISSING, TOKEN_MALFORMED, TOKEN_UNKNOWN), rate limit (RATE_LIMITED, counted like a
 * create), body (BODY_INVALID), organization key (ORGANIZATION_KEY_MISSING) and organization
 * (ORGANIZATION_KEY_INVALID, ORGANIZATION_INACTIVE, NOT_A_MEMBER). Only a member of an active
 * organization gets further.
 */
export const governingProcedure = ProcedureBuilder.create<CoreContext>()
  .use(authenticate)
  .use(limitPerToken)
  .use(requireObjectBody)
  .use(resolveOrganization);

/**
 * A zod schema over the whole body from a reader that answers the parsed arguments or the
 * messages saying what is wrong (every one found), for `.input(schema, argumentsError)`.
 */
export function argumentsSchema<T>(read: (body: unknown) => T | { problems: string[] }) {
  return z.unknown().transform((body, ctx): T => {
    const parsed = read(body);
    if (typeof parsed === 'object' && parsed !== null && 'problems' in parsed) {
      for (const message of parsed.problems) ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    return parsed;
  });
}

/** Every message the reader reported, as one ARGUMENT_INVALID. */
export const argumentsError = (error: z.ZodError) =>
  argumentInvalid(error.issues.map((issue) => issue.message));
