import { createMemoryStore } from '../../core';
import { describeStoreContract } from './store-contract';

describe('storage contract: memory store', () => {
  describeStoreContract(() => ({ fresh: () => Promise.resolve(createMemoryStore()) }));
});
