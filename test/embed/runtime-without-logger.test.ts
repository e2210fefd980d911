import { join } from 'node:path';
import { createRuntime, loadConfig } from '../../core/runtime';
import { tempDirs } from '../support/temp-dirs';

const dirs = tempDirs('runtime-without-logger');
afterAll(() => dirs.removeAll());

/**
 * core/README.md's `createRuntime(loadConfig(), logger)` with the logger left out, as a plain
 * JavaScript embedder may: it logged through `undefined` and failed on the second start on one
 * DATA_DIR, whose store then held an organization (the first start logged nothing).
 */
describe('createRuntime without a logger', () => {
  it('starts, provisions, closes and starts again on the same DATA_DIR, logging nothing', async () => {
    const config = loadConfig({ DATA_DIR: join(await dirs.make(), 'data') });
    const write = jest.spyOn(process.stdout, 'write');
    try {
      const first = await createRuntime(config);
      expect(first.wantsDemo).toBe(true);
      await first.provisionDemo(8080);
      await first.close();
      // The store now holds an organization: this start says why it provisions no demo.
      const second = await createRuntime(config);
      expect(second.wantsDemo).toBe(false);
      await second.core.ready();
      await second.close();
      expect(write).not.toHaveBeenCalled();
    } finally {
      write.mockRestore();
    }
  });
});
