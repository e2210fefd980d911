import { toLinkView } from '../../../core/links/link-view';
import type { LinkRecord } from '../../../core/ports/link-store';

const record: LinkRecord = {
  id: 7,
  domain: 'acme.link',
  alias: 'hot',
  url: 'https://example.com/hot',
  redirectType: 301,
  scheme: 'https',
  organizationId: 'acme',
  groupApiId: '1',
  userId: 'alice',
  createdAt: new Date('2026-01-02T03:04:05.678Z'),
  expiresAt: new Date('2027-01-02T00:00:00.000Z'),
};

describe('toLinkView, made once per record', () => {
  it('answers each caller an object of its own: changing one answer changes no later one', () => {
    const first = toLinkView(record);
    expect(first).toEqual({
      id: 7,
      short_url: 'https://acme.link/hot',
      url: 'https://example.com/hot',
      domain: 'acme.link',
      alias: 'hot',
      redirect_type: 301,
      url_group_id: '1',
      state: 'active',
      created_at: '2026-01-02T03:04:05.678Z',
      expires_at: '2027-01-02T00:00:00.000Z',
    });
    first.url = 'https://evil.example/';
    const second = toLinkView(record);
    expect(second).not.toBe(first);
    expect(second.url).toBe('https://example.com/hot');
  });

  it('adds a visit total per call, never keeping it for the next', () => {
    expect(toLinkView(record, 12).visit_count).toBe(12);
    expect(toLinkView(record)).not.toHaveProperty('visit_count');
    expect(toLinkView(record, 3).visit_count).toBe(3);
  });

  it('makes another record its own view', () => {
    const disabled: LinkRecord = {
      ...record,
      disabled: { reason: 'kit', at: new Date('2026-02-01T00:00:00.000Z'), by: 'alice' },
    };
    expect(toLinkView(disabled)).toMatchObject({ state: 'disabled', disabled_by: 'user:alice' });
    expect(toLinkView(record).state).toBe('active');
  });
});
