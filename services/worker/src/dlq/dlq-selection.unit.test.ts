import { describe, expect, it } from '@jest/globals';

import { selectionFromOptions } from './dlq-selection.js';

describe('dlq replay/purge options', () => {
  it('select by ids, by a failure-time range, or all', () => {
    expect(selectionFromOptions({ id: ['3', '12'] })).toEqual({ ids: [3, 12] });
    expect(selectionFromOptions({ from: '2026-11-20T00:00:00Z', to: '2026-11-21T00:00:00+01:00' })).toEqual({
      from: new Date('2026-11-20T00:00:00Z'),
      to: new Date('2026-11-20T23:00:00Z'),
    });
    expect(selectionFromOptions({ all: true })).toEqual({ all: true });
  });

  it('refuse no selection, or more than one', () => {
    expect(() => selectionFromOptions({})).toThrow('give exactly one of');
    expect(() => selectionFromOptions({ id: ['1'], all: true })).toThrow('give exactly one of');
    expect(() => selectionFromOptions({ all: true, from: '2026-11-20T00:00:00Z' })).toThrow(
      'give exactly one of',
    );
  });

  it('refuse a range without both ends, or backwards', () => {
    expect(() => selectionFromOptions({ from: '2026-11-20T00:00:00Z' })).toThrow('go together');
    expect(() => selectionFromOptions({ from: '2026-11-21T00:00:00Z', to: '2026-11-20T00:00:00Z' })).toThrow(
      'must not be after',
    );
  });

  it('refuse ids and times that are not ids and times', () => {
    expect(() => selectionFromOptions({ id: ['1', 'abc'] })).toThrow('--id: must be a dead-letter id');
    expect(() => selectionFromOptions({ id: ['0'] })).toThrow('must be a dead-letter id');
    expect(() => selectionFromOptions({ from: 'yesterday', to: '2026-11-20T00:00:00Z' })).toThrow(
      '--from: must be an ISO 8601 date-time',
    );
  });
});
