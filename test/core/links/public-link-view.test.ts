import { toPublicLinkView } from '../../../core';
import { toLinkView } from '../../../core/links/link-view';
import type { LinkRecord } from '../../../core/ports/link-store';

describe('toPublicLinkView', () => {
  it('keeps what a follow shows and the link names, nothing of its id, group, owner, state or times', () => {
    const link: LinkRecord = {
      id: 42,
      domain: 'acme.link',
      alias: 'spring',
      url: 'https://example.com/spring-sale',
      redirectType: 302,
      scheme: 'https',
      organizationId: 'acme',
      groupApiId: '7',
      userId: 'alice',
      createdAt: new Date('2026-03-01T09:30:00.000Z'),
      disabled: { reason: 'reported', at: new Date('2026-03-02T10:00:00.000Z'), by: 'admin' },
    };
    expect(toPublicLinkView(toLinkView(link))).toStrictEqual({
      short_url: 'https://acme.link/spring',
      url: 'https://example.com/spring-sale',
      domain: 'acme.link',
      alias: 'spring',
      redirect_type: 302,
    });
  });
});
