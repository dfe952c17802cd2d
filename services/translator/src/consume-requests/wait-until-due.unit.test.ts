import { describe, expect, it } from '@jest/globals';

import { waitUntilDue } from './wait-until-due.js';

const noHeartbeat = () => Promise.resolve();
const always = () => true;

describe('waiting for a retry to be due', () => {
  it('returns at once when the due time has passed', async () => {
    const started = Date.now();
    const due = await waitUntilDue(started - 1000, {
      heartbeat: noHeartbeat,
      keepWaiting: always,
      signal: new AbortController().signal,
    });
    expect(due).toBe(true);
    // Well under one slice (1 s): it did not sleep at all.
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('waits until the due time, with a heartbeat after each slice', async () => {
    let heartbeats = 0;
    const started = Date.now();
    const due = await waitUntilDue(started + 120, {
      heartbeat: async () => {
        heartbeats += 1;
      },
      keepWaiting: always,
      signal: new AbortController().signal,
      sliceMs: 25,
    });
    expect(due).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
    // A heartbeat after every slice; how many slices depends on how late the timers fire: on a
    // loaded machine the first 25 ms sleep can end after the due time (the next test counts them
    // with a clock of its own).
    expect(heartbeats).toBeGreaterThanOrEqual(1);
  });

  it('cuts the wait into slices of sliceMs: 120 ms in slices of 25 is five slices, five heartbeats', async () => {
    // A clock that moves 25 ms per slice, whatever the machine's timers do.
    let clock = 0;
    let heartbeats = 0;
    const due = await waitUntilDue(120, {
      heartbeat: async () => {
        heartbeats += 1;
        clock += 25;
      },
      keepWaiting: always,
      signal: new AbortController().signal,
      sliceMs: 25,
      now: () => clock,
    });
    expect(due).toBe(true);
    expect(heartbeats).toBe(5);
  });

  it('ends at once, not due, when aborted (the consumer stops)', async () => {
    const stopping = new AbortController();
    const started = Date.now();
    setTimeout(() => stopping.abort(), 30);
    const due = await waitUntilDue(started + 60_000, {
      heartbeat: noHeartbeat,
      keepWaiting: always,
      signal: stopping.signal,
    });
    expect(due).toBe(false);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('ends after the slice in hand, not due, once the partition is no longer ours', async () => {
    let ours = true;
    setTimeout(() => (ours = false), 30);
    const due = await waitUntilDue(Date.now() + 60_000, {
      heartbeat: noHeartbeat,
      keepWaiting: () => ours,
      signal: new AbortController().signal,
      sliceMs: 20,
    });
    expect(due).toBe(false);
  });
});
