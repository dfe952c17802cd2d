import { describe, expect, it } from '@jest/globals';
import { AppError } from '@tp/runtime';

import type { TermEntry } from '../matching/term-matcher.js';
import type { ModerationTermView, TermSource } from './moderation-term.store.js';
import { TermCatalogue } from './term-catalogue.js';

const LIST: TermEntry[] = [{ term: 'listed', kind: 'block', language: 'en', source: 'list' }];

/** An in-memory source that counts reads and can fail or stall on demand. */
class FakeSource implements TermSource {
  terms: ModerationTermView[] = [];
  revisions = 0;
  lists = 0;
  failing = false;
  stall: Promise<void> | undefined;

  add(term: string, kind: 'block' | 'allow' = 'block'): void {
    this.terms = [
      ...this.terms,
      { id: `id-${this.terms.length}`, term, kind, language: null, created_at: new Date(0).toISOString() },
    ];
  }

  async revision(): Promise<string> {
    this.revisions += 1;
    await this.stall;
    if (this.failing) throw new Error('database down');
    return this.terms.map((t) => t.id).join(',');
  }

  async list(): Promise<ModerationTermView[]> {
    this.lists += 1;
    if (this.failing) throw new Error('database down');
    return this.terms;
  }
}

function setup(options: { failing?: boolean } = {}) {
  const source = new FakeSource();
  source.failing = options.failing ?? false;
  let now = 0;
  const errors: unknown[] = [];
  const catalogue = new TermCatalogue(source, LIST, {
    refreshIntervalMs: 1000,
    maxWaitMs: 20,
    now: () => now,
    onError: (err) => errors.push(err),
  });
  const terms = async (text: string) => (await catalogue.current()).find(text).map((m) => m.term);
  return { source, catalogue, terms, errors, advance: (ms: number) => (now += ms) };
}

describe('TermCatalogue', () => {
  it('serves the list terms and the custom terms together', async () => {
    const { source, terms } = setup();
    source.add('custom');
    expect(await terms('listed and custom')).toEqual(['listed', 'custom']);
  });

  it('checks the revision at most once per interval', async () => {
    const { source, terms, advance } = setup();
    await terms('x');
    await terms('x');
    advance(999);
    await terms('x');
    expect(source.revisions).toBe(1);
    advance(1);
    await terms('x');
    expect(source.revisions).toBe(2);
  });

  it('rebuilds only when the revision changed', async () => {
    const { source, terms, advance } = setup();
    await terms('x');
    advance(1000);
    await terms('x');
    expect(source.lists).toBe(1);
    source.add('fresh');
    expect(await terms('fresh')).toEqual([]);
    advance(1000);
    expect(await terms('fresh')).toEqual(['fresh']);
    expect(source.lists).toBe(2);
  });

  it('applies a change at once after reload(), before the interval is over', async () => {
    const { source, catalogue, terms } = setup();
    await terms('x');
    source.add('fresh');
    await catalogue.reload();
    expect(await terms('fresh')).toEqual(['fresh']);
  });

  it('answers 503 DEPENDENCY_UNAVAILABLE while the terms were never loaded', async () => {
    const { catalogue, errors } = setup({ failing: true });
    const failure = await catalogue.current().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).code).toBe('DEPENDENCY_UNAVAILABLE');
    expect(errors).toHaveLength(1);
  });

  it('keeps serving the last terms when a later check fails, and reports the failure', async () => {
    const { source, terms, advance, errors } = setup();
    source.add('kept');
    await terms('x');
    source.failing = true;
    advance(1000);
    expect(await terms('kept')).toEqual(['kept']);
    expect(errors).toEqual([new Error('database down')]);
    // The failed check counts as a check: no query on every call while the database is down.
    await terms('kept');
    expect(source.revisions).toBe(2);
  });

  it('answers with the terms at hand when a due check is slow, and uses its result afterwards', async () => {
    const { source, terms, advance } = setup();
    await terms('x');
    let release = () => {};
    source.stall = new Promise((resolve) => (release = resolve));
    source.add('late');
    advance(1000);
    expect(await terms('late')).toEqual([]);
    release();
    source.stall = undefined;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await terms('late')).toEqual(['late']);
  });
});
