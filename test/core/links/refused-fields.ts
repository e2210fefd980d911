import { ErrorCode, type ErrorReason } from '../../../core';
import { createTestCore, type CoreFixture } from '../../support/core-fixture';
import { expectFailure } from '../../support/failures';

type Cases = ReadonlyArray<[label: string, value: unknown]>;

/** The ways a field can be absent from a body: left out, null, or empty. */
export const ABSENT: Cases = [
  ['missing', undefined],
  ['null', null],
  ['empty', ''],
];

/** Values of other JSON types than text, built around a valid `text` (an array holding it, ...). */
export function notText(text: string): Cases {
  return [
    ['a number', 12345],
    ['a boolean', true],
    ['an object', { value: text }],
    ['an array', [text]],
  ];
}

/** A valid create body with `field` set to `value`, or left out when `value` is undefined. */
export function bodyWith(f: CoreFixture, field: string, value: unknown): Record<string, unknown> {
  const body = f.body({ [field]: value });
  if (value === undefined) delete body[field];
  return body;
}

/**
 * One test per case: a create whose `field` is set to the case's value (left out for undefined)
 * is refused with `reason` and exactly `messages`.
 */
export function itRefuses(
  field: string,
  cases: Cases,
  reason: ErrorReason,
  messages: string[],
): void {
  it.each(cases)(`refuses ${field}: %s, with code ${ErrorCode[reason]}`, async (_label, value) => {
    const f = await createTestCore();
    const create = f.caller().links.create(bodyWith(f, field, value) as never);
    await expectFailure(create, reason, messages);
  });
}

/** itRefuses for a required field: every ABSENT case, then `alsoAbsent`, "<field> is required.". */
export function itRefusesWhenAbsent(
  field: string,
  reason: ErrorReason,
  alsoAbsent: Cases = [],
): void {
  itRefuses(field, [...ABSENT, ...alsoAbsent], reason, [`${field} is required.`]);
}
