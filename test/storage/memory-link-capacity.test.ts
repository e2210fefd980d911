import { BackendUnavailableError, createMemoryStore, ShortlinkError } from '../../core';
import { createTestCore } from '../support/core-fixture';
import { insertNew, newLink } from './fixtures';

describe('memory store beyond one Map', () => {
  it('spreads links over several Maps and keeps every alias unique and retrievable', async () => {
    const store = createMemoryStore({ links: { mapCapacity: 4 } });
    for (let i = 0; i < 10; i += 1) {
      expect((await insertNew(store.links, newLink({ alias: `a${i}` }))).id).toBe(i + 1);
    }
    expect(store.links.mapCount).toBe(3);
    expect(store.links.size).toBe(10);
    // An alias held by the first Map is still taken after others were started.
    await expect(store.links.insert(newLink({ alias: 'a0' }))).resolves.toBe('alias_taken');
    for (let i = 0; i < 10; i += 1) {
      await expect(store.links.findByAlias('acme.link', `a${i}`)).resolves.toMatchObject({
        id: i + 1,
      });
    }
    expect(store.links.size).toBe(10);
  });

  it('refuses links past its maximum with code 23 and writes nothing', async () => {
    const store = createMemoryStore({ links: { maxLinks: 2, mapCapacity: 1 } });
    const f = await createTestCore({ store });
    await f.caller().links.create(f.body({ alias: 'one' }) as never);
    await f.caller().links.create(f.body({ alias: 'two' }) as never);
    await expect(store.links.insert(newLink({ alias: 'three' }))).rejects.toThrow(
      new BackendUnavailableError(
        'the in-memory store holds its maximum of 2 links; use a durable store (DATA_DIR or MONGODB_URI) for more',
      ),
    );
    const refused = f.caller().links.create(f.body({ alias: 'three' }) as never);
    await expect(refused).rejects.toBeInstanceOf(ShortlinkError);
    await expect(refused).rejects.toMatchObject({ reason: 'BACKEND_UNAVAILABLE' });
    await expect(store.links.findByAlias('acme.link', 'three')).resolves.toBeNull();
    expect(store.links.size).toBe(2);
    // A taken alias is still answered as taken (15), not as a full store.
    await expect(store.links.insert(newLink({ alias: 'one', domain: 'acme.link' }))).resolves.toBe(
      'alias_taken',
    );
  });
});
