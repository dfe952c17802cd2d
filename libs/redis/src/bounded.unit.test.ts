import { describe, expect, it } from '@jest/globals';

import { bounded } from './index.js';

describe('bounded', () => {
  it('passes a prompt answer through', async () => {
    await expect(bounded(Promise.resolve('v'), 50)).resolves.toBe('v');
  });

  it('rejects a command that does not answer in time', async () => {
    await expect(bounded(new Promise(() => undefined), 20)).rejects.toThrow(
      'redis did not answer within 20 ms',
    );
  });

  it('passes a failure through', async () => {
    await expect(bounded(Promise.reject(new Error('down')), 50)).rejects.toThrow('down');
  });
});
