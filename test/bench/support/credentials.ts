import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Seed } from '../../../core';

/** The one organization, group and user every bench subject is seeded with. */
export const BENCH_TOKEN = 'slpat_bench0000000000000000000000000000000000';
export const BENCH_ORGANIZATION_KEY = 'slorg_bench0000000000000000000000000000000000';
export const BENCH_GROUP = '1';
export const BENCH_DOMAIN = 'bench.link';

/** A valid create body: no alias, so every request gets a generated one and succeeds. */
export const CREATE_BODY = {
  organization_key: BENCH_ORGANIZATION_KEY,
  url_group_id: BENCH_GROUP,
  url: 'https://example.com/articles/2026/11/a-fairly-typical-long-path?utm_source=bench',
};

export const CREATE_HEADERS = {
  authorization: `Bearer ${BENCH_TOKEN}`,
  'content-type': 'application/json',
};

export const benchSeed: Seed = {
  organizations: [
    {
      id: 'bench',
      name: 'Bench',
      secret_key: BENCH_ORGANIZATION_KEY,
      domain: BENCH_DOMAIN,
      scheme: 'https',
      groups: [{ api_id: BENCH_GROUP, name: 'Default' }],
    },
  ],
  users: [{ id: 'bench', name: 'Bench', tokens: [BENCH_TOKEN], organizations: ['bench'] }],
};

/** Writes the seed file the subject servers load through SHORTLINK_SEED_FILE. */
export function writeBenchSeed(directory: string): string {
  const file = join(directory, 'bench-seed.json');
  writeFileSync(file, JSON.stringify(benchSeed));
  return file;
}
