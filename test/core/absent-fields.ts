import { createTestCore, type CoreFixture } from '../support/core-fixture';
import { expectFailure } from '../support/failures';

/** The ways a field can be absent from a body: left out, null, or empty. */
export const ABSENT: ReadonlyArray<[label: string, value: unknown]> = [
  ['missing', undefined],
  ['null', null],
  ['empty', ''],
];

/** A valid create body with `field` set to `value`, or left out when `value` is undefined. */
export function bodyWith(f: CoreFixture, field: string, value: unknown): Record<string, unknown> {
  const body = f.body({ [field]: value });
  if (value === undefined) delete body[field];
  return body;
}

/**
 * One test per way a required `field` can be absent (ABSENT, then `alsoAbsent`): the create is
 * refused with `code` and the message "<field> is required.".
 */
export function itRefusesWhenAbsent(
  field: string,
  code: number,
  alsoAbsent: ReadonlyArray<[label: string, value: unknown]> = [],
): void {
  it.each([...ABSENT, ...alsoAbsent])(
    `refuses ${field} when it is %s, with code ${code}`,
    async (_label, value) => {
      const f = await createTestCore();
      const create = f.caller().links.create(bodyWith(f, field, value) as never);
      await expectFailure(create, code, [`${field} is required.`]);
    },
  );
}
