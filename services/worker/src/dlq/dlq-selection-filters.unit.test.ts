import { describe, expect, it } from '@jest/globals';
import { describeSelection } from '@tp/pipeline';

import { selectionFromOptions } from './dlq-selection.js';

describe('dlq replay/purge options by kind of failure', () => {
  it('select every entry of a kind with --code/--topic/--group alone, and narrow --all or a range', () => {
    expect(selectionFromOptions({ code: 'TRANSLATION_FAILED', topic: 'translation.requested.v1' })).toEqual({
      all: true,
      filter: { code: 'TRANSLATION_FAILED', topic: 'translation.requested.v1' },
    });
    expect(selectionFromOptions({ all: true, group: 'worker.content' })).toEqual({
      all: true,
      filter: { group: 'worker.content' },
    });
    expect(
      selectionFromOptions({ from: '2026-11-20T00:00:00Z', to: '2026-11-21T00:00:00Z', code: 'X' }),
    ).toEqual({
      from: new Date('2026-11-20T00:00:00Z'),
      to: new Date('2026-11-21T00:00:00Z'),
      filter: { code: 'X' },
    });
  });

  it('refuse --id with a kind, and an empty kind', () => {
    expect(() => selectionFromOptions({ id: ['1'], code: 'X' })).toThrow('--id does not combine with');
    expect(() => selectionFromOptions({ code: '' })).toThrow('--code');
  });

  it('describe a narrowed selection in words', () => {
    expect(describeSelection({ all: true, filter: { code: 'X', group: 'g' } })).toBe(
      'all entries with code X, group g',
    );
    expect(describeSelection({ all: true })).toBe('all entries');
  });
});
