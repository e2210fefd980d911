import { countRoundTrips as countOnFakeMongo, total } from '../../support/mongo-round-trips';

export interface RoundTrips {
  create: { cold: number; warm: number };
  follow: { cold: number; warm: number };
}

/**
 * MongoDB round trips for one create and one follow, the first (cold) and the second (warm) of
 * each in a process, rate limits on MongoDB: the runtime on a fake MongoDB at the driver's
 * Db/Collection level that records every call the driver answers with one command (see
 * test/support/mongo-round-trips.ts; test/mongodb/round-trips.test.ts asserts the same counts).
 * Counted, not timed, so they are exact on any machine.
 */
export async function countRoundTrips(caches: boolean): Promise<RoundTrips> {
  const report = await countOnFakeMongo({ caches });
  return {
    create: { cold: total(report.createCold.mongo), warm: total(report.createWarm.mongo) },
    follow: { cold: total(report.followCold.mongo), warm: total(report.followWarm.mongo) },
  };
}
