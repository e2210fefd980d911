import { createTestCore } from '../../support/core-fixture';
import { expectFailure } from '../../support/failures';

const URL_INVALID =
  'url must be an absolute http:// or https:// URL with a host and no spaces or control characters.';

/**
 * A JSON body may escape a lone surrogate (`"\ud800"`), which no UTF-8 text can hold: the URL
 * parser, the stores and gRPC all write it as U+FFFD, so the link would redirect elsewhere than
 * the URL the create answered with. Refused (7), as a body whose bytes hold one is (20).
 */
describe('links.create: a url holding a lone surrogate', () => {
  it.each([
    ['a lone high surrogate in the path', 'https://example.com/a\ud800b'],
    ['a lone low surrogate in the path', 'https://example.com/a\udc00b'],
    ['a lone surrogate at the end', 'https://example.com/\ud83d'],
    ['a lone surrogate in the host', 'https://exa\ud800mple.com/'],
  ])('refuses %s with 7', async (_what, url) => {
    const f = await createTestCore();
    await expectFailure(f.caller().links.create(f.body({ url }) as never), 'URL_INVALID', [
      URL_INVALID,
    ]);
  });

  it('accepts a surrogate pair (an astral character) as before', async () => {
    const f = await createTestCore();
    const url = 'https://example.com/\ud83d\ude00';
    const link = await f.caller().links.create(f.body({ url }) as never);
    expect(link.url).toBe(url);
  });
});
