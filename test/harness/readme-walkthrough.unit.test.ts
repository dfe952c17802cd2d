import { describe, expect, it } from '@jest/globals';

import { comparable, walkthroughSteps, WALKTHROUGH_END, WALKTHROUGH_START } from './readme-walkthrough.js';

const fence = (kind: string, text: string) => `\`\`\`${kind}\n${text}\n\`\`\``;

describe('the README walkthrough parser', () => {
  it('pairs each bash block with the output block after it, inside the markers only', () => {
    const readme = [
      fence('bash', 'echo outside'),
      WALKTHROUGH_START,
      'Make a key:',
      fence('bash', 'export KEY=$(npm run -s keys -- create)'),
      'Use it:',
      fence('bash', 'curl -s localhost:3000/a \\\n  -H "x: 1"'),
      fence('json', '{"code":0}'),
      fence('bash', 'echo done'),
      fence('text', 'done'),
      WALKTHROUGH_END,
      fence('bash', 'echo after'),
    ].join('\n');
    expect(walkthroughSteps(readme)).toEqual([
      { commands: 'export KEY=$(npm run -s keys -- create)' },
      { commands: 'curl -s localhost:3000/a \\\n  -H "x: 1"', expected: '{"code":0}' },
      { commands: 'echo done', expected: 'done' },
    ]);
  });

  it('refuses a README without the markers or with a block left open', () => {
    expect(() => walkthroughSteps(fence('bash', 'echo'))).toThrow('no walkthrough markers');
    expect(() => walkthroughSteps(`${WALKTHROUGH_START}\n\`\`\`bash\necho\n${WALKTHROUGH_END}`)).toThrow(
      'not closed',
    );
  });
});

describe('comparable outputs', () => {
  it('compares JSON however the README wraps it, and other text as it is', () => {
    expect(comparable('{"a":1,\n "b":[2, 3]}')).toBe(comparable('{"a":1,"b":[2,3]}\n'));
    expect(comparable('{"a":1}')).not.toBe(comparable('{"b":1,"a":1}'));
    expect(comparable('  two  words\n')).toBe('two  words');
  });

  it('masks ids, times, keys, durations and revisions, and nothing else', () => {
    const output =
      '{"tracking_id":"d0894c17-bf66-429c-ae29-548863898a30","at":"2026-11-29T06:13:32.546Z","revision":12,"duration":0.051,"key":"tp__ssdCazANWlAnV-ZJee_Im6sdQNhUF3ARZ4Kzc43fqA","text":"Buenos días 2026"}\n';
    expect(comparable(output)).toBe(
      '{"tracking_id":"<uuid>","at":"<time>","revision":<n>,"duration":<n>,"key":"<key>","text":"Buenos días 2026"}',
    );
  });
});
