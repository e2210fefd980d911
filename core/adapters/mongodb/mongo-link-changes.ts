import type { Collection, Filter, UpdateFilter, WithId } from 'mongodb';
import type { LinkChangeOutcome, LinkRecord } from '../../ports/link-store';
import { isDuplicateKeyOn, onMongo } from './backend-errors';
import type { HistoryDocument, LinkDocument } from './documents';
import { toLinkFields, toLinkRecord } from './link-document';
import type { LinkDecision } from '../link-edit';

/** What a change makes of the link it read: the link to write and its history entry. */

/** The index every collection has on `_id`. */
const ID_INDEX = { name: '_id_', key: { _id: 1 } };

/** Reads a change may retry when another change came in between (each is a round trip). */
const MAX_ATTEMPTS = 8;

/**
 * A change of one link (a state change, an edit), as one conditional write: the link is read,
 * `decide` makes the new link and its history entry, and the write matches only the revision it
 * read (another change in between makes it read again), with the entry as `lastChange` in the
 * same document. The entry is then copied to `link_history` under (link, position); a crash in
 * between leaves it in `lastChange`, which a read of the history includes, and the next change
 * copies it first. Visits (takeVisit's `$inc`) are never in the written fields, so a change never
 * undoes a count made meanwhile.
 */
export async function changeLink(
  links: Collection<LinkDocument>,
  history: Collection<HistoryDocument>,
  id: number,
  operation: string,
  decide: (link: LinkRecord) => LinkDecision,
): Promise<LinkChangeOutcome | 'held' | null> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const current = await onMongo('link lookup', () => links.findOne({ _id: id }));
    if (!current) return null;
    const decided = decide(toLinkRecord(current));
    if (decided === 'held') return decided;
    if (!decided.entry) return { link: toLinkRecord(current), changed: false };
    if (current.lastChange) await copyToHistory(history, current.lastChange);
    const revision = (current.revision ?? 0) + 1;
    const lastChange: HistoryDocument = {
      ...decided.entry,
      _id: { link: id, position: revision },
    };
    const written = await onMongo(operation, () =>
      links.findOneAndUpdate(
        // `null` matches a link never changed, which has no revision. The domain and alias (which
        // never change) are the shard key: a cluster sharded on them before MongoDB 7.0 targets a
        // findAndModify by it only.
        revisionFilter(current),
        updateOf(current, decided.link, revision, lastChange),
        { returnDocument: 'after' },
      ),
    );
    if (!written) continue;
    // The change is made, and its entry kept in `lastChange`: a copy that fails now (the server
    // out of reach a moment) is as a crash in between, made good by the next change and read by
    // history meanwhile. Failing the call would answer BACKEND_UNAVAILABLE for a change made.
    await copyToHistory(history, lastChange).catch(() => undefined);
    return { link: toLinkRecord(written), changed: true };
  }
  throw new Error(`link ${id} changed ${MAX_ATTEMPTS} times while this change was being made`);
}

/** The link as read, by its id, its shard key and its revision (`null`: never changed). */
function revisionFilter(current: WithId<LinkDocument>): Filter<LinkDocument> {
  return {
    _id: current._id,
    domain: current.domain,
    alias: current.alias,
    // Typed as the field's values; null also matches a missing field, as the server reads it.
    revision: (current.revision ?? null) as number,
  };
}

/** $set of every field of the new link but the visit count, $unset of those now absent. */
/** Fields of a link document a change never $sets nor $unsets (visits: see below). */
const NEVER_WRITTEN_BY_A_CHANGE = new Set([
  '_id',
  'domain',
  'alias',
  'revision',
  'lastChange',
  'visits',
]);

function updateOf(
  current: LinkDocument,
  link: LinkRecord,
  revision: number,
  lastChange: HistoryDocument,
): UpdateFilter<LinkDocument> {
  // The key and the shard key (domain, alias) never change: a $set of a shard key field is refused
  // by sharded clusters before 4.2, and pointless anywhere. Visits are takeVisit's alone.
  const { _id, visits, domain: _domain, alias: _alias, ...fields } = toLinkFields(link);
  const unset: Record<string, ''> = {};
  for (const key of Object.keys(current)) {
    if (!NEVER_WRITTEN_BY_A_CHANGE.has(key) && !(key in fields)) unset[key] = '';
  }
  const update: UpdateFilter<LinkDocument> = {
    $set: { ...fields, revision, lastChange },
  };
  if (link.maxVisits === undefined) unset.visits = '';
  // A limit set now starts its count at 0; an edited one keeps the count it has.
  else if (visits !== undefined) update.$max = { visits: 0 };
  if (Object.keys(unset).length > 0) update.$unset = unset;
  return update;
}

/** Copies an entry to `link_history`; one copied before (a retry, a crash) is left as it is. */
async function copyToHistory(
  history: Collection<HistoryDocument>,
  entry: HistoryDocument,
): Promise<void> {
  try {
    await onMongo('link history entry', () => history.insertOne(entry));
  } catch (error) {
    if (!isDuplicateKeyOn(error, ID_INDEX)) throw error;
  }
}
