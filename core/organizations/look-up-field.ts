import type { z } from 'zod';
import type { ErrorReason } from '../errors/error-codes';
import { ShortlinkError } from '../errors/shortlink-error';
import { isAbsent, ownField } from '../procedure/raw-input';

/**
 * The organization and group stages read one required field the same way: missing (absent, null
 * or empty) fails with `missing` and "<name> is required."; a value the schema refuses names
 * nothing, so it is not looked up: `lookUpField` answers null for it, as for a value `lookUp` does
 * not find.
 */
export async function lookUpField<TSchema extends z.ZodType, TFound>(
  rawInput: unknown,
  name: string,
  schema: TSchema,
  missing: ErrorReason,
  lookUp: (value: z.output<TSchema>) => Promise<TFound | null>,
): Promise<TFound | null> {
  const raw = ownField(rawInput, name);
  if (isAbsent(raw)) throw new ShortlinkError(missing, `${name} is required.`);
  const parsed = schema.safeParse(raw);
  return parsed.success ? lookUp(parsed.data) : null;
}
