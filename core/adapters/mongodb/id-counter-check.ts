import type { Collection } from 'mongodb';
import { onMongo } from './backend-errors';
import type { CounterDocument, LinkDocument } from './documents';
import { LINK_ID_COUNTER } from './mongo-id-sequence';

/** The counter is behind the links: ids already used would be handed out again. */
export class IdCounterBehindError extends Error {
  override readonly name = 'IdCounterBehindError';
}

/**
 * Start-up check that the id counter is at least the largest link id. A database restored from a
 * backup taken before the counter's last update, or a counter reset by hand, would otherwise
 * hand out ids that links already carry (the insert would then fail on `_id` for ever after).
 * One read of each collection, once per start: the links read goes to every shard, which is fine
 * at start-up and never happens per request.
 */
export async function checkIdCounter(
  links: Pick<Collection<LinkDocument>, 'findOne'>,
  counters: Pick<Collection<CounterDocument>, 'findOne'>,
): Promise<void> {
  // The links first, then the counter: a block is taken (the counter raised) before any of its
  // ids is inserted, so whatever a running process inserted before the links read, the counter
  // read after it covers. Read the other way round (or at once), a process taking a block and
  // inserting between the two reads made a healthy database look behind, refusing start-ups
  // during a rolling deploy.
  const highest = await onMongo('id counter check', () =>
    links.findOne({}, { sort: { _id: -1 }, projection: { _id: 1 } }),
  );
  const counter = await onMongo('id counter check', () =>
    counters.findOne({ _id: LINK_ID_COUNTER }),
  );
  const largestId = highest?._id ?? 0;
  const seq = counter?.seq ?? 0;
  if (seq < largestId) {
    throw new IdCounterBehindError(
      `the link id counter (counters {_id: "${LINK_ID_COUNTER}"}, seq ${seq}) is behind the largest link id (${largestId}); ` +
        `new links would reuse ids. Set it with db.counters.updateOne({_id: "${LINK_ID_COUNTER}"}, {$max: {seq: ${largestId}}}, {upsert: true}) and start again`,
    );
  }
}
