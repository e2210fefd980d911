import type { z } from 'zod';
import type { ErrorReason } from '../errors/error-catalogue';
import { ShortlinkError } from '../errors/shortlink-error';
import { isAbsent, ownField } from '../procedure/raw-input';

/**
 * The organization and group stages read one required field the same way: missing (absent, null
 * or empty) fails with `missing` and its catalogue message ("<name> is required."); a value the
 * schema refuses is not looked up, and answers null as a value `lookUp` does not find does, so
 * the caller fails both alike (ORGANIZATION_KEY_INVALID, URL_GROUP_NOT_FOUND).
 */
export async function lookUpField<TSchema extends z.ZodType, TFound>(
  rawInput: unknown,
  name: string,
  schema: TSchema,
  missing: Extract<ErrorReason, 'ORGANIZATION_KEY_MISSING' | 'URL_GROUP_ID_MISSING'>,
  lookUp: (value: z.output<TSchema>) => Promise<TFound | null>,
): Promise<TFound | null> {
  const raw = ownField(rawInput, name);
  if (isAbsent(raw)) throw new ShortlinkError(missing);
  const parsed = schema.safeParse(raw);
  return parsed.success ? lookUp(parsed.data) : null;
}
