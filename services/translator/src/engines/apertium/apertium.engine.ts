import { z } from 'zod';

import { EngineError, type EngineItem, type TranslationEngine } from '../engine.js';
import { endpoint, isRecord, send, statusFailure, stringField, type HttpReply } from '../http-errors.js';
import { coverageOf, type PairCoverage } from '../pair-coverage.js';
import { fromApertiumCode, splitApertiumCode } from './apertium.languages.js';
import { apertiumRequests, SEPARATOR } from './apertium.batch.js';
import { JoinedCalls } from './apertium.joined-calls.js';
import { formValue, toApertiumText } from './apertium.text.js';

export interface ApertiumOptions {
  /** The APy instance, e.g. `http://127.0.0.1:2737`. */
  readonly baseUrl: string;
  /** Characters per text; longer text is split on sentence boundaries by the chain (default 2000). */
  readonly maxChars?: number;
  /** Failed calls in a row after which a direction is withdrawn (default 3). */
  readonly withdrawAfter?: number;
  /** How long a withdrawn direction stays withdrawn before one trial call (default 10 minutes). */
  readonly withdrawForMs?: number;
  readonly now?: () => number;
}

const listPairsReply = z.object({
  responseData: z.array(z.object({ sourceLanguage: z.string(), targetLanguage: z.string() })),
});

/** Our direction -> the `langpair` APy is asked for (plain codes win over variants). */
type PairTable = ReadonlyMap<string, string>;

/** A direction's failures in a row, and until when it is withdrawn. */
interface DirectionHealth {
  failures: number;
  withdrawnUntil: number;
}

/**
 * Texts per call, and their characters in all: about one APy request (a request grows with the
 * character references of escaped characters and the separators; see MAX_REQUEST_CHARS).
 */
const BATCH = { maxTexts: 100, maxChars: 4000 };

/**
 * APy requests of one direction out at once; calls that come meanwhile wait and go together
 * (apertium.joined-calls.ts). A pipeline of APy translates one request at a time (a lock over its
 * deformatter, pipeline and reformatter); the APy we start (infra/apertium/apertium.sh) opens a
 * second pipeline of a direction when a request finds the first busy, so two requests run at once.
 * APy cuts a request into pieces of PIPE_BUF (4,096) bytes, each with its own two formatter processes,
 * or of 1,000 characters once more than two requests are in a pipeline (split_for_translation in
 * apertium_apy/utils/translation.py). So: two out, each at most one piece (three out measured no faster
 * in bench:apertium's batch phase: smaller joint requests, no more pipelines busy).
 */
const REQUESTS_IN_FLIGHT = 2;
const APY_PIECE_BYTES = 4096;
/** What a text adds to a joint request's `q`: its escaped UTF-8 bytes and a separator. */
const bytesInRequest = (text: string) => Buffer.byteLength(toApertiumText(text)) + SEPARATOR.length;

/**
 * Apertium's HTTP server (APy): `GET /listPairs` says which directions are installed, `POST /translate`
 * translates the texts of a call with `langpair=eng|spa`, in as few requests as MAX_REQUEST_CHARS
 * allows (apertium.batch.ts). APy runs its own pipelines per direction, and a broken pipeline (a package
 * whose tagger crashes) fails every call of that direction only: such a direction is withdrawn for a
 * while after `withdrawAfter` failures in a row, so it neither keeps failing requests nor counts
 * against the other directions.
 */
export function createApertiumEngine(options: ApertiumOptions): TranslationEngine {
  const listUrl = endpoint(options.baseUrl, '/listPairs');
  const translateUrl = endpoint(options.baseUrl, '/translate');
  const withdrawAfter = options.withdrawAfter ?? 3;
  const health = directionHealth(
    withdrawAfter,
    options.withdrawForMs ?? 10 * 60_000,
    options.now ?? Date.now,
  );
  const { withdrawn } = health;
  let table: PairTable | undefined;

  const learn = async (signal: AbortSignal): Promise<PairTable> => {
    const reply = await send('apertium', listUrl, { method: 'GET' }, signal);
    if (reply.status !== 200) throw apertiumFailure(reply);
    const parsed = listPairsReply.safeParse(reply.json);
    if (!parsed.success) throw new EngineError('apertium', 'rejected', 'unexpected /listPairs body');
    table = pairTable(parsed.data.responseData);
    return table;
  };

  /** The failure of a refused request; the installed pairs or the direction's health learn from it. */
  const failed = (langpair: string, reply: HttpReply): EngineError => {
    const error = apertiumFailure(reply);
    // The installed pairs changed since /listPairs: read it again next time.
    if (error.kind === 'unsupported') table = undefined;
    if (error.kind === 'transient') health.failed(langpair);
    return error;
  };

  const joinedCalls = joinedByDirection((langpair, texts, signal) =>
    sendTexts(translateUrl, langpair, texts, signal, {
      failed: (reply) => failed(langpair, reply),
      succeeded: () => health.succeeded(langpair),
    }),
  );

  return {
    name: 'apertium',
    maxChars: options.maxChars ?? 2000,
    batch: BATCH,

    async languagePairs(signal): Promise<PairCoverage> {
      const pairs = await learn(signal);
      return coverageOf((source, target) => {
        const langpair = pairs.get(pairKey(source, target));
        return langpair !== undefined && !withdrawn(langpair);
      });
    },

    async translate({ texts, source, target }, signal) {
      if (source === 'auto') {
        throw new EngineError('apertium', 'unsupported', 'Apertium needs a known source language, not auto');
      }
      const langpair = (table ?? (await learn(signal))).get(pairKey(source, target));
      if (langpair === undefined) {
        throw new EngineError('apertium', 'unsupported', `no Apertium pair for ${source} -> ${target}`);
      }
      if (withdrawn(langpair)) throw withdrawnError(langpair, withdrawAfter);
      return joinedCalls(langpair).translate(texts, signal);
    },
  };
}

/** One JoinedCalls per direction asked for (keys from the pair table, never from a caller). */
function joinedByDirection(
  send: (langpair: string, texts: readonly string[], signal: AbortSignal) => Promise<EngineItem[]>,
): (langpair: string) => JoinedCalls {
  const joined = new Map<string, JoinedCalls>();
  return (langpair) => {
    let calls = joined.get(langpair);
    if (!calls) {
      const sendOne = (texts: readonly string[], signal: AbortSignal) => send(langpair, texts, signal);
      calls = new JoinedCalls(
        sendOne,
        REQUESTS_IN_FLIGHT,
        bytesInRequest,
        APY_PIECE_BYTES - SEPARATOR.length,
      );
      joined.set(langpair, calls);
    }
    return calls;
  };
}

/** The texts of a direction's joint call, in as few APy requests as they fit; one item per text. */
async function sendTexts(
  url: string,
  langpair: string,
  texts: readonly string[],
  signal: AbortSignal,
  outcome: { failed(reply: HttpReply): EngineError; succeeded(): void },
): Promise<EngineItem[]> {
  const items: EngineItem[] = [];
  for (const request of apertiumRequests(texts)) {
    if (request instanceof EngineError) {
      items.push(request);
      continue;
    }
    const reply = await postTranslate(url, langpair, request.q, signal);
    if (reply.status !== 200) throw outcome.failed(reply);
    outcome.succeeded();
    items.push(...request.answers(translatedText(reply)));
  }
  return items;
}

/** Each direction's failures in a row; a direction is withdrawn for a while after `withdrawAfter`. */
function directionHealth(withdrawAfter: number, withdrawForMs: number, now: () => number) {
  const health = new Map<string, DirectionHealth>();
  return {
    withdrawn: (langpair: string) => (health.get(langpair)?.withdrawnUntil ?? 0) > now(),
    failed(langpair: string) {
      const entry = health.get(langpair) ?? { failures: 0, withdrawnUntil: 0 };
      entry.failures += 1;
      if (entry.failures >= withdrawAfter) entry.withdrawnUntil = now() + withdrawForMs;
      health.set(langpair, entry);
    },
    succeeded: (langpair: string) => health.delete(langpair),
  };
}

function withdrawnError(langpair: string, withdrawAfter: number): EngineError {
  return new EngineError(
    'apertium',
    'unsupported',
    `${langpair} is withdrawn for now: APy failed it ${withdrawAfter} times in a row`,
  );
}

/**
 * POST /translate of `q` as HTML (markup passes through), unknown words marked. The form is written
 * by hand: byte for byte what URLSearchParams writes (a unit test compares them), without building
 * its list of pairs on every call.
 */
function postTranslate(url: string, langpair: string, q: string, signal: AbortSignal): Promise<HttpReply> {
  const body =
    `langpair=${formValue(langpair)}&q=${formValue(q)}` +
    '&markUnknown=yes&deformat=html&reformat=html-noent';
  return send(
    'apertium',
    url,
    { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body },
    signal,
  );
}

/**
 * The translated text of a 200 reply (`{"responseData": {"translatedText": "..."}}`). Checked by
 * hand, without a zod parse per reply.
 */
function translatedText(reply: HttpReply): string {
  const data = isRecord(reply.json) ? reply.json['responseData'] : undefined;
  const translated = isRecord(data) ? data['translatedText'] : undefined;
  if (typeof translated !== 'string') {
    throw new EngineError('apertium', 'rejected', 'unexpected response body');
  }
  return translated;
}

/**
 * Our directions from APy's list. A direction several Apertium pairs serve (eng -> cat, cat_valencia,
 * cat_iec2017) is asked of the plain one; a variant serves only when there is no plain pair.
 */
function pairTable(listed: readonly { sourceLanguage: string; targetLanguage: string }[]): PairTable {
  const ranked = [...listed].sort(
    (a, b) => variantCount(a) - variantCount(b) || a.targetLanguage.localeCompare(b.targetLanguage),
  );
  const table = new Map<string, string>();
  for (const { sourceLanguage, targetLanguage } of ranked) {
    for (const source of fromApertiumCode(sourceLanguage)) {
      for (const target of fromApertiumCode(targetLanguage)) {
        const key = pairKey(source, target);
        if (source !== target && !table.has(key)) table.set(key, `${sourceLanguage}|${targetLanguage}`);
      }
    }
  }
  return table;
}

const variantCount = (pair: { sourceLanguage: string; targetLanguage: string }) =>
  [pair.sourceLanguage, pair.targetLanguage].filter((code) => splitApertiumCode(code).variant).length;

const pairKey = (source: string, target: string) => `${source}>${target}`;

/**
 * APy's errors: `{"status": "error", "code": 400, "explanation": "That pair is not installed"}`; 503
 * when a pipeline timed out or crashed.
 */
function apertiumFailure(reply: HttpReply): EngineError {
  const explanation = stringField(reply.json, 'explanation');
  if (reply.status === 400 && explanation && /not installed|pair is invalid/i.test(explanation)) {
    return new EngineError('apertium', 'unsupported', explanation);
  }
  const detail = isRecord(reply.json) ? (explanation ?? stringField(reply.json, 'message')) : undefined;
  return statusFailure('apertium', reply, detail);
}
