/**
 * What the engine adapter tests share: asserting an EngineError of a given kind, and the transport tests
 * (refused and dropped connections, the caller's abort, a timeout signal) that every HTTP adapter must pass
 * the same way, since they all go through `send` in http-errors.ts.
 */
import { describe, expect, it } from '@jest/globals';

import {
  EngineError,
  type EngineFailureKind,
  type EngineName,
  type EngineRequest,
  type EngineResult,
  type TextRequest,
  type TranslationEngine,
} from '../../services/translator/src/engines/engine.js';
import { closedPortUrl, type Fault, type HttpDouble } from './http-double.js';

/** A signal that never aborts, for calls that are not about aborting. */
export const never: AbortSignal = new AbortController().signal;

/** A short en -> de request that every HTTP adapter supports. */
export const HI: TextRequest = { text: 'Hi', source: 'en', target: 'de' };

/** A call of three texts in two languages, source `auto`, for the adapters whose API takes several at once. */
export const AUTO_BATCH: EngineRequest = {
  texts: ['Good morning', 'Danke', 'Thank you'],
  source: 'auto',
  target: 'fr',
};

/** What the doubles' phrase book answers to AUTO_BATCH: each text in order, with the language found. */
export const AUTO_BATCH_ITEMS: readonly EngineResult[] = [
  { text: 'Bonjour', detectedSource: 'en', truncated: false },
  { text: 'Merci', detectedSource: 'de', truncated: false },
  { text: 'Merci', detectedSource: 'en', truncated: false },
];

/** One text through an engine's call: its result, or its own failure thrown as the call's would be. */
export async function translateOne(
  engine: Pick<TranslationEngine, 'translate'>,
  { text, ...pair }: TextRequest,
  signal: AbortSignal,
): Promise<EngineResult> {
  const items = await engine.translate({ ...pair, texts: [text] }, signal);
  expect(items).toHaveLength(1);
  const [item] = items;
  if (item instanceof EngineError) throw item;
  return item as EngineResult;
}

/** Awaits `promise`, expects it to reject with an EngineError of `engine` and `kind`, and returns it. */
export async function expectEngineFailure(
  promise: Promise<unknown>,
  engine: EngineName,
  kind: EngineFailureKind,
): Promise<EngineError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EngineError);
  expect(err).toMatchObject({ engine, kind });
  return err as EngineError;
}

export interface TransportFaultSetup {
  /** The adapter under test, built against a base URL (the double's, or one where nothing listens). */
  readonly makeEngine: (baseUrl: string) => TranslationEngine;
  /** The suite's double; called only while a test runs, so it may be started in `beforeAll`. */
  readonly double: () => HttpDouble;
  /** A request the adapter sends over HTTP (a supported pair); default `HI`. */
  readonly request?: TextRequest;
  /**
   * The paths of the calls one translation makes, each of which gets the dropped-connection, abort and
   * timeout tests. Default: the adapter makes one call, and the fault hits whatever it requests.
   */
  readonly paths?: readonly string[];
  /** Credentials the adapter is given, which no error message may contain. */
  readonly secrets?: readonly string[];
}

/**
 * Registers, inside the current `describe`, the transport tests for one HTTP adapter: a refused
 * connection and a connection dropped before the answer are transient EngineErrors, while an abort by
 * the caller and a timeout signal surface as the signal's own reason (so the chain can tell them apart).
 * The suite's own `beforeEach` must `reset()` the double.
 */
export function describeTransportFaults(engineName: EngineName, setup: TransportFaultSetup): void {
  const { makeEngine, double, request = HI, secrets = [] } = setup;
  const paths: readonly (string | undefined)[] = setup.paths ?? [undefined];
  const translate = (signal: AbortSignal) => translateOne(makeEngine(double().url), request, signal);
  const fail = (fault: Fault, path: string | undefined) => double().fail(fault, { path });

  describe('transport faults and abort', () => {
    it('reports a refused connection as transient, naming the error code but no credentials', async () => {
      const offline = makeEngine(await closedPortUrl());

      const err = await expectEngineFailure(translateOne(offline, request, never), engineName, 'transient');
      expect(err.message).toContain('ECONNREFUSED');
      expect(secrets.filter((secret) => err.message.includes(secret))).toEqual([]);
    });

    for (const path of paths) {
      const to = path === undefined ? '' : ` to ${path}`;
      const during = path === undefined ? '' : ` during ${path}`;

      it(`reports a connection dropped before the answer${to} as transient`, async () => {
        fail({ type: 'destroy' }, path);
        await expectEngineFailure(translate(never), engineName, 'transient');
      });

      it(`rethrows the abort reason unchanged when the caller aborts${during}`, async () => {
        fail({ type: 'hang' }, path);
        const controller = new AbortController();
        const reason = new Error('chain gave up');
        const pending = translate(controller.signal);
        setTimeout(() => controller.abort(reason), 50);

        await expect(pending).rejects.toBe(reason);
      });

      it(`lets a timeout signal${during} surface as its TimeoutError, not an EngineError`, async () => {
        fail({ type: 'hang' }, path);

        const err = await translate(AbortSignal.timeout(50)).catch((e: unknown) => e);
        expect(err).not.toBeInstanceOf(EngineError);
        expect(err).toMatchObject({ name: 'TimeoutError' });
      });
    }
  });
}
