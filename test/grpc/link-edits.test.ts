import type { Metadata } from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { createMemoryRateLimiter, systemClock, type UrlGuard } from '../../core';
import { operatorActing } from '../../core/links/link-actor';
import { ADMIN_ACTOR } from '../../core/ports/link-store';
import {
  LinkChangeKind,
  ListShortLinkHistoryRequest,
  UpdateShortLinkRequest,
  type ListShortLinkHistoryResponse,
  type ShortLink,
  type UpdateShortLinkResponse,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import type { CoreFixture } from '../support/core-fixture';
import { outcomeOf } from '../support/grpc-call';
import { startGrpcOnTestCore, validRequest, type GrpcFixture } from '../support/grpc-fixture';
import { bearer } from '../support/grpc-metadata';
import { expectFailure } from './error-details';

/** UpdateShortLink and ListShortLinkHistory through a real server on the core. */
let f: CoreFixture;
let grpc: GrpcFixture;

const blockEvil: UrlGuard = {
  check: (url) =>
    Promise.resolve(
      url.hostname === 'evil.example'
        ? { blocked: true, reason: 'the host is on the blocklist' }
        : { blocked: false },
    ),
};

beforeAll(async () => {
  ({ f, grpc } = await startGrpcOnTestCore({
    urlGuard: blockEvil,
    rateLimiter: createMemoryRateLimiter({ limit: 1000, keyPrefix: 'grpc-edits' }),
  }));
});
afterAll(() => grpc.close());

const auth = (): Metadata => bearer(f.token);

function update(request: Partial<UpdateShortLinkRequest>) {
  return outcomeOf<UpdateShortLinkResponse>((callback) =>
    grpc.client.updateShortLink(
      UpdateShortLinkRequest.fromPartial({ organizationKey: f.organizationKey, ...request }),
      auth(),
      callback,
    ),
  );
}

function history(request: Partial<ListShortLinkHistoryRequest>) {
  return outcomeOf<ListShortLinkHistoryResponse>((callback) =>
    grpc.client.listShortLinkHistory(
      ListShortLinkHistoryRequest.fromPartial({ organizationKey: f.organizationKey, ...request }),
      auth(),
      callback,
    ),
  );
}

async function created(overrides: Parameters<typeof validRequest>[1] = {}): Promise<ShortLink> {
  const { response, error } = await grpc.create(validRequest(f, overrides), f.token);
  expect(error).toBeUndefined();
  return response!.shortLink!;
}

/** The message of LINK_HELD holds "; ", the separator of messages in details. */
const HELD = {
  details: 'This link was disabled by the operator; only the operator can enable or change it.',
};

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

describe('UpdateShortLink', () => {
  it('changes the masked fields only; an unset masked expiry or limit removes it; redirect_type 0 is 301', async () => {
    const link = await created({ redirectType: 307 });
    const expiresAt = inDays(7);
    const first = await update({
      id: link.id,
      updateMask: ['url', 'expires_at', 'max_visits'],
      url: 'https://example.org/new',
      expiresAt,
      maxVisits: 3,
      // Not in the mask: left as it is.
      redirectType: 302,
    });
    expect(first.error).toBeUndefined();
    expect(first.response?.shortLink).toMatchObject({
      id: link.id,
      alias: link.alias,
      url: 'https://example.org/new',
      redirectType: 307,
      expiresAt: new Date(expiresAt),
      maxVisits: 3,
    });
    const second = await update({
      alias: link.alias,
      updateMask: ['expires_at', 'max_visits', 'redirect_type'],
    });
    expect(second.error).toBeUndefined();
    expect(second.response?.shortLink).toMatchObject({
      url: 'https://example.org/new',
      redirectType: 301,
      expiresAt: undefined,
      maxVisits: undefined,
    });
    const followed = await grpc.resolve({ domain: f.domain, alias: link.alias });
    expect(followed.response?.shortLink?.url).toBe('https://example.org/new');
  });

  it.each([
    ['an empty mask', { updateMask: [] }],
    ['no mask', { updateMask: undefined }],
    ['a path it does not edit', { updateMask: ['alias'], alias: 'other' }],
    ['a path that is no field', { updateMask: ['url', 'nope'], url: 'https://example.org/' }],
  ])('refuses %s with 29, INVALID_ARGUMENT', async (_what, request) => {
    const link = await created();
    const outcome = await update({ id: link.id, ...request });
    expectFailure(outcome, 'ARGUMENT_INVALID', status.INVALID_ARGUMENT, 'alias' in request ? 2 : 1);
  });

  it('answers the create codes for bad values, every failing field reported', async () => {
    const link = await created();
    expectFailure(
      await update({ id: link.id, updateMask: ['url'] }),
      'URL_MISSING',
      status.INVALID_ARGUMENT,
    );
    expectFailure(
      await update({
        id: link.id,
        updateMask: ['redirect_type', 'expires_at', 'max_visits'],
        redirectType: 300,
        expiresAt: '2020-01-01T00:00:00Z',
        maxVisits: 0,
      }),
      'REDIRECT_TYPE_INVALID',
      status.INVALID_ARGUMENT,
      3,
    );
    expectFailure(
      await update({ id: link.id, updateMask: ['max_visits'], maxVisits: 2_000_000_000 }),
      'MAX_VISITS_INVALID',
      status.INVALID_ARGUMENT,
    );
    expectFailure(
      await update({ id: link.id, updateMask: ['expires_at'], expiresAt: 'tomorrow' }),
      'EXPIRES_AT_INVALID',
      status.INVALID_ARGUMENT,
    );
  });

  it('refuses a blocked new url with 18 and changes nothing', async () => {
    const link = await created();
    const outcome = await update({
      id: link.id,
      updateMask: ['url'],
      url: 'https://evil.example/login',
    });
    expectFailure(outcome, 'URL_BLOCKED', status.FAILED_PRECONDITION);
    const now = await grpc.get({ organizationKey: f.organizationKey, id: link.id }, f.token);
    expect(now.response?.shortLink?.url).toBe(link.url);
  });

  it('answers 24 for another organization’s link', async () => {
    const other = await created({ organizationKey: f.otherOrganizationKey });
    const outcome = await update({ id: other.id, updateMask: ['max_visits'], maxVisits: 2 });
    expectFailure(outcome, 'NOT_FOUND', status.NOT_FOUND);
  });

  it('answers 33 (PERMISSION_DENIED, LINK_HELD) to a member’s update or enable of a link the operator disabled', async () => {
    const link = await created();
    const acting = operatorActing(systemClock, ADMIN_ACTOR);
    await f.store.links.setDisabled(
      link.id,
      { reason: 'takedown', at: acting.at, by: acting.by },
      acting,
    );
    expectFailure(
      await update({ id: link.id, updateMask: ['url'], url: 'https://example.org/fixed' }),
      'LINK_HELD',
      status.PERMISSION_DENIED,
      HELD,
    );
    expectFailure(
      await grpc.enable({ organizationKey: f.organizationKey, id: link.id }, f.token),
      'LINK_HELD',
      status.PERMISSION_DENIED,
      HELD,
    );
    const now = await grpc.get({ organizationKey: f.organizationKey, id: link.id }, f.token);
    expect(now.response?.shortLink).toMatchObject({ url: link.url, disabledBy: 'admin' });
  });
});

describe('ListShortLinkHistory', () => {
  it('pages the history oldest first, each change with its old and new value', async () => {
    const link = await created();
    await update({ id: link.id, updateMask: ['max_visits'], maxVisits: 5 });
    await update({ id: link.id, updateMask: ['max_visits', 'url'], url: 'https://example.org/b' });
    await grpc.disable(
      { organizationKey: f.organizationKey, id: link.id, reason: 'paused' },
      f.token,
    );
    await grpc.enable({ organizationKey: f.organizationKey, id: link.id }, f.token);

    const entries = [];
    let pageToken = '';
    let pages = 0;
    do {
      const { response, error } = await history({ id: link.id, pageSize: 2, pageToken });
      expect(error).toBeUndefined();
      entries.push(...response!.entries);
      pageToken = response!.nextPageToken;
      pages += 1;
    } while (pageToken !== '');
    expect(pages).toBe(3);
    expect(entries.map((entry) => [entry.kind, entry.by])).toEqual([
      [LinkChangeKind.LINK_CHANGE_KIND_CREATED, 'user:alice'],
      [LinkChangeKind.LINK_CHANGE_KIND_UPDATED, 'user:alice'],
      [LinkChangeKind.LINK_CHANGE_KIND_UPDATED, 'user:alice'],
      [LinkChangeKind.LINK_CHANGE_KIND_DISABLED, 'user:alice'],
      [LinkChangeKind.LINK_CHANGE_KIND_ENABLED, 'user:alice'],
    ]);
    expect(entries[1]?.changes).toEqual([
      { field: 'max_visits', oldValue: undefined, newValue: '5' },
    ]);
    expect(entries[2]?.changes).toEqual([
      { field: 'url', oldValue: link.url, newValue: 'https://example.org/b' },
      { field: 'max_visits', oldValue: '5', newValue: undefined },
    ]);
    expect(entries[3]?.reason).toBe('paused');
    for (const entry of entries) expect(entry.at).toBeInstanceOf(Date);
  });

  it('refuses a bad page size or a foreign token with 29, another organization’s link with 24', async () => {
    const link = await created();
    expectFailure(
      await history({ id: link.id, pageSize: 101 }),
      'ARGUMENT_INVALID',
      status.INVALID_ARGUMENT,
    );
    expectFailure(
      await history({ id: link.id, pageToken: 'not-a-token' }),
      'ARGUMENT_INVALID',
      status.INVALID_ARGUMENT,
    );
    const other = await created({ organizationKey: f.otherOrganizationKey });
    expectFailure(await history({ id: other.id }), 'NOT_FOUND', status.NOT_FOUND);
  });
});
