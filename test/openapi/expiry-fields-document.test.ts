import { ErrorCode } from '../../core';
import { LINK_EXPIRED_PAGE, LINK_GONE_PAGE } from '../../gateway-http/link-gone-page';
import { buildOpenApiDocument } from '../../gateway-http/openapi/openapi-document';

/** What the OpenAPI document says of expires_at, max_visits and code 30. */

interface Response {
  content: Record<
    string,
    {
      schema?: { properties?: { code?: { enum?: number[] } } };
      examples: Record<string, { value: unknown }>;
    }
  >;
}
const document = buildOpenApiDocument() as {
  components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
};
const codesOf = (response: Response | undefined) =>
  response?.content['application/json']?.schema?.properties?.code?.enum;

describe('the OpenAPI document: expiry by date and by visits', () => {
  it('describes both fields in the create body, after the spec fields', () => {
    const create = document.components.schemas['CreateShortLinkRequest']!;
    expect(Object.keys(create.properties)).toEqual([
      'organization_key',
      'url_group_id',
      'url',
      'alias',
      'redirect_type',
      'expires_at',
      'max_visits',
    ]);
    expect(create.properties['expires_at']).toMatchObject({
      type: ['string', 'null'],
      format: 'date-time',
    });
    expect(create.properties['max_visits']).toMatchObject({
      anyOf: [{ type: 'integer', minimum: 1, maximum: 1_000_000_000 }, { type: 'null' }],
    });
  });

  it('lists 31 and 32 among the 422s of a create, with their messages', () => {
    const refused = document.paths['/api/create']!['post']!.responses['422'];
    expect(codesOf(refused)).toEqual(expect.arrayContaining([31, 32]));
    expect(refused?.content['application/json']?.examples['code31']?.value).toEqual({
      data: null,
      code: ErrorCode.EXPIRES_AT_INVALID,
      errors: [
        'expires_at must be an RFC 3339 date-time with an offset, in the future and at most 10 years ahead.',
      ],
    });
  });

  it('lists 28 and 30 under the 410 of following, in JSON and as the two pages', () => {
    const gone = document.paths['/{alias}']!['get']!.responses['410'];
    expect(codesOf(gone)).toEqual([28, 30]);
    const pages = gone?.content['text/html']?.examples ?? {};
    expect(Object.values(pages).map((example) => example.value)).toEqual([
      LINK_GONE_PAGE,
      LINK_EXPIRED_PAGE,
    ]);
  });
});
