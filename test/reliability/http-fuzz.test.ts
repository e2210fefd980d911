import { ErrorCode } from '../../core';
import { Agent } from 'node:http';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { expectConforming } from '../support/openapi-conformance';
import { expectEnvelope } from '../support/envelope';
import { canForceGc, settledHeapUsed } from '../support/heap';
import { hostileCreate, type HostileCreate } from '../support/hostile-requests';
import { sendRaw, type RawAnswer } from '../support/raw-http';
import { startTestService, UNLIMITED, type TestService } from '../support/in-process-service';

/**
 * Hostile input through the real HTTP server: every answer is the contract's envelope with the
 * status its code implies, never a 5xx; only a success stores a link; no prototype gets polluted.
 */
describe('REST gateway under hostile input', () => {
  let t: TestService;
  let agent: Agent;
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();

  beforeAll(async () => {
    t = await startTestService(UNLIMITED);
    agent = new Agent({ keepAlive: true, maxSockets: 4 });
  });
  afterAll(async () => {
    agent.destroy();
    await t.service.shutdown();
  });

  function expectPrototypesClean(): void {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
    const probe = {} as Record<string, unknown>;
    expect(probe.polluted).toBeUndefined();
    expect(probe.isAdmin).toBeUndefined();
    expect(typeof probe.toString).toBe('function');
  }

  /** Sends one create and checks everything the contract promises about its answer. */
  async function createAndCheck(request: HostileCreate): Promise<RawAnswer> {
    const before = t.store.links.size;
    const answer = await sendRaw({
      port: t.port,
      headers: request.headers,
      body: request.body,
      agent,
    });
    const envelope = expectEnvelope(answer);
    // And the answer is one the OpenAPI document describes, status, body and headers.
    await expectConforming({ method: 'POST', path: '/api/create', ...answer });
    const stored = t.store.links.size - before;
    if (envelope.code === 0) {
      if (stored !== 1) throw new Error(`a success stored ${stored} links`);
      const data = envelope.data as { domain: string; alias: string; id: number };
      const link = await t.store.links.findByAlias(data.domain, data.alias);
      if (link?.id !== data.id) throw new Error('the answered link is not the stored one');
    } else if (stored !== 0) {
      throw new Error(`a failure (code ${envelope.code}) stored ${stored} links`);
    }
    expectPrototypesClean();
    return answer;
  }

  it('answers generated hostile creates with the envelope and stores only successes', async () => {
    const codes = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(hostileCreate({ ...t.demo }), async (request) => {
        const answer = await createAndCheck(request);
        const { code } = JSON.parse(answer.text) as { code: number };
        codes.set(code, (codes.get(code) ?? 0) + 1);
      }),
      { numRuns: 400 },
    );
    // The generator must reach deep stages, not only be refused at the door. About 34 of the 400
    // are successes (29 to 38 in six runs, a standard deviation of about 6); a clean-clone CI run
    // drew exactly 20, so the bound sits four deviations below the mean, not two and a half.
    expect(codes.get(0) ?? 0).toBeGreaterThan(10);
    expect(codes.size).toBeGreaterThan(8);
  });

  it.each([
    ['10k levels of arrays (over the size limit)', '['.repeat(10_000) + ']'.repeat(10_000)],
    ['8k levels of arrays (under the size limit)', '['.repeat(8_000) + ']'.repeat(8_000)],
    ['3k levels of objects', '{"a":'.repeat(3_000) + '1' + '}'.repeat(3_000)],
    ['unclosed nesting', '{"a":'.repeat(3_000)],
    ['a body of NUL bytes', '\u0000'.repeat(100)],
    ['__proto__ at the top', '{"__proto__":{"polluted":"yes"},"url":"https://example.com/"}'],
    [
      'constructor.prototype',
      '{"constructor":{"prototype":{"polluted":"yes"}},"url":"https://example.com/"}',
    ],
    ['duplicate keys', '{"url":"https://a.example/","url":{"$gt":""}}'],
  ])('answers %s with the envelope', async (_label, text) => {
    await createAndCheck({
      label: _label,
      headers: { 'Content-Type': 'application/json', Authorization: t.authorization },
      body: Buffer.from(text),
    });
  });

  it('reports a 10k-level nesting as too large and an 8k-level one as not an object', async () => {
    const headers = { 'Content-Type': 'application/json', Authorization: t.authorization };
    const deep = await sendRaw({
      port: t.port,
      headers,
      body: '['.repeat(10_000) + ']'.repeat(10_000),
    });
    expect([deep.status, JSON.parse(deep.text).code]).toEqual([413, ErrorCode.BODY_TOO_LARGE]);
    const nested = await sendRaw({
      port: t.port,
      headers,
      body: '['.repeat(8_000) + ']'.repeat(8_000),
    });
    expect([nested.status, JSON.parse(nested.text).code]).toEqual([400, ErrorCode.BODY_INVALID]);
  });

  it('cuts a gzip bomb off at the body limit (413), without inflating it all', async () => {
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(16 * 1024);
    const answer = await createAndCheck({
      label: 'gzip bomb',
      headers: {
        'Content-Type': 'application/json',
        'Content-Encoding': 'gzip',
        Authorization: t.authorization,
      },
      body: bomb,
    });
    expect([answer.status, JSON.parse(answer.text).code]).toEqual([413, ErrorCode.BODY_TOO_LARGE]);
  });

  it('treats NoSQL operators as wrongly typed fields, never as queries', async () => {
    const answer = await createAndCheck({
      label: 'operators',
      headers: { 'Content-Type': 'application/json', Authorization: t.authorization },
      body: Buffer.from(
        JSON.stringify({ organization_key: { $gt: '' }, url_group_id: { $ne: null }, url: 'x' }),
      ),
    });
    expect([answer.status, JSON.parse(answer.text).code]).toEqual([
      401,
      ErrorCode.ORGANIZATION_KEY_INVALID,
    ]);
  });

  it('answers any method and path with the envelope (HEAD: status only)', async () => {
    const method = fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'POST', 'HEAD');
    const path = fc.oneof(
      fc.constantFrom(
        '/api/create',
        '/api/create/',
        '/API/CREATE',
        '/api',
        '/api/',
        '/api/create/extra',
        '/api/%',
        '/%E0%A4%A',
        '/%ZZ',
        '/a%00b',
        '/..%2f..%2fetc%2fpasswd',
        '/__proto__',
        '/constructor',
        '/healthz/x',
        '//api/create',
        `/${'a'.repeat(5000)}`,
      ),
      fc
        .string({ unit: 'binary-ascii', maxLength: 40 })
        .map((s) => '/' + encodeURIComponent(s).replace(/%2F/g, '/')),
    );
    await fc.assert(
      fc.asyncProperty(method, path, async (verb, target) => {
        const answer = await sendRaw({
          port: t.port,
          method: verb,
          path: target,
          headers: { Authorization: t.authorization, 'Content-Type': 'application/json' },
          body: verb === 'GET' || verb === 'HEAD' ? undefined : '{}',
          agent,
        });
        if (answer.status >= 500) throw new Error(`${verb} ${target}: ${answer.status}`);
        await expectConforming({ method: verb, path: target, ...answer });
        if (verb === 'HEAD' || (answer.status >= 300 && answer.status < 400)) return;
        expectEnvelope(answer);
      }),
      { numRuns: 150 },
    );
    expectPrototypesClean();
  });

  it('returns the heap to its level after a hostile run', async () => {
    const hostile = fc.sample(hostileCreate({ ...t.demo }), { numRuns: 450, seed: 8 });
    // Large bodies that are fully decoded and then refused (bad alias): what a leak would keep.
    const large: HostileCreate = {
      label: 'large refused body',
      headers: { 'Content-Type': 'application/json', Authorization: t.authorization },
      body: Buffer.from(
        JSON.stringify(t.validBody({ alias: 'no spaces', pad: 'x'.repeat(15_000) })),
      ),
    };
    const requests = hostile.flatMap((request) => [request, large]);
    const run = async (batch: HostileCreate[]) => {
      const queue = [...batch];
      const lane = async () => {
        for (let request = queue.shift(); request; request = queue.shift()) {
          await sendRaw({ port: t.port, headers: request.headers, body: request.body, agent });
        }
      };
      await Promise.all([lane(), lane(), lane(), lane()]);
      return batch.reduce((bytes, request) => bytes + request.body.length, 0);
    };
    await run(requests.slice(0, 100)); // warm-up: lazy compilation, caches, pools
    const before = await settledHeapUsed();
    const sent = await run(requests.slice(100));
    const after = await settledHeapUsed();
    // Only links stay (a few hundred small records, well under 1 MiB); keeping even half of
    // what was sent (the bodies decode to about as many bytes of strings) would not fit.
    if (canForceGc) {
      const tolerance = 3 * 1024 * 1024;
      expect(sent / 2).toBeGreaterThan(tolerance);
      expect(after - before).toBeLessThan(tolerance);
    } else {
      // Garbage may still be pending without a forced collection, so only a loose bound holds.
      expect(after - before).toBeLessThan(64 * 1024 * 1024);
    }
    // Seconds on an idle machine; minutes when other work shares the two cores.
  }, 120_000);
});
