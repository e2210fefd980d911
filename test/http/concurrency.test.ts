import { createMemoryRateLimiter, ErrorCode } from '../../core';
import { startHttpOnTestCore } from '../support/http-fixture';

describe('concurrent creates over HTTP', () => {
  it('50 simultaneous creates of one alias: exactly one 200, the rest 422 code 15', async () => {
    const { f, http } = await startHttpOnTestCore();
    try {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          http.create(f.body({ alias: 'contested', url: `https://example.com/${i}` }), f.token),
        ),
      );
      const ok = answers.filter((answer) => answer.status === 200);
      const taken = answers.filter((answer) => answer.status === 422);
      expect(ok).toHaveLength(1);
      expect(taken).toHaveLength(49);
      for (const answer of taken) {
        expect(answer.json()).toEqual({
          data: null,
          code: ErrorCode.ALIAS_TAKEN,
          errors: ['This alias is already taken on this link domain.'],
        });
      }
      const winner = ok[0]!.json() as { data: { url: string } };
      expect(f.linkCount()).toBe(1);
      expect((await f.store.links.findByAlias(f.domain, 'contested'))?.url).toBe(winner.data.url);
    } finally {
      await http.close();
    }
  });

  it('200 simultaneous generated creates: unique aliases and unique ids', async () => {
    const { f, http } = await startHttpOnTestCore({
      rateLimiter: createMemoryRateLimiter({ limit: 1000, keyPrefix: 'many' }),
    });
    try {
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          http.create(f.body({ url: `https://example.com/${i}` }), f.token),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(200).fill(200));
      const links = answers.map(
        (answer) => (answer.json() as { data: { id: number; alias: string; url: string } }).data,
      );
      expect(new Set(links.map((link) => link.alias)).size).toBe(200);
      const ids = links.map((link) => link.id).sort((a, b) => a - b);
      expect(ids).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      expect(f.linkCount()).toBe(200);
      for (const link of links.slice(0, 20)) {
        expect((await f.store.links.findByAlias(f.domain, link.alias))?.url).toBe(link.url);
      }
    } finally {
      await http.close();
    }
  });
});
