import { execFileSync } from 'node:child_process';

import { describe, expect, it } from '@jest/globals';

// A process that logs and exits at once: the asynchronous destination writes what it still holds
// when the process exits, in order.
describe('createLogger', () => {
  it('writes every line, in order, before a process that exits right after logging', () => {
    const script = `
      const { createLogger } = await import('@tp/runtime');
      const logger = createLogger('logger-test');
      for (let i = 0; i < 2000; i += 1) logger.info({ i }, 'line');
      process.exit(0);
    `;
    const out = execFileSync(
      process.execPath,
      ['--conditions=@tp/source', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    const lines = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { i: number; service: string; level: string });
    expect(lines.map((line) => line.i)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    expect(lines[0]).toMatchObject({ service: 'logger-test', level: 'info' });
  });
});
