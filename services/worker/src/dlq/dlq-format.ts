import type {
  DeadLetterKind,
  DeadLetterRecord,
  DeadLetterSummary,
  PayloadView,
  PurgeOutcome,
  ReplayOutcome,
} from '@tp/pipeline';
import { collapseWhitespace } from '@tp/runtime';

/** One line per entry: id, failure time, where it came from, who gave up, and why. */
export function entryLine(entry: DeadLetterSummary): string {
  const origin = `${entry.originalTopic}[${entry.originalPartition}]@${entry.originalOffset}`;
  const error = `${entry.errorCode}: ${collapseWhitespace(entry.errorMessage).slice(0, 120)}`;
  return `${String(entry.id).padStart(6)}  ${entry.failedAt.toISOString()}  ${origin}  ${entry.consumerGroup}  ${error}`;
}

/** An entry as JSON for scripts: the fields of the admin API, key as text, payload decoded when possible. */
export function entryJson(entry: DeadLetterSummary | DeadLetterRecord, payload?: PayloadView): unknown {
  const { messageKey, ...rest } = entry;
  return {
    ...rest,
    key: messageKey ? messageKey.toString('utf8') : null,
    ...(payload ? { payload } : {}),
  };
}

export function showText(entry: DeadLetterRecord, payload: PayloadView): string {
  const lines = [
    `id              ${entry.id}`,
    `failed at       ${entry.failedAt.toISOString()} (indexed ${entry.createdAt.toISOString()})`,
    `consumer group  ${entry.consumerGroup}`,
    `original        ${entry.originalTopic} partition ${entry.originalPartition} offset ${entry.originalOffset}`,
    `key             ${entry.messageKey ? entry.messageKey.toString('utf8') : '(none)'}`,
    `event id        ${entry.eventId ?? '(none)'}`,
    `error           ${entry.errorCode} after ${entry.attempts} attempt(s)`,
    `                ${entry.errorMessage}`,
    'headers',
    ...Object.entries(entry.headers).map(([name, value]) => `  ${name}: ${value}`),
  ];
  if (payload.encoding === 'json') {
    lines.push('payload (decoded)', JSON.stringify(payload.value, null, 2));
  } else {
    lines.push(`payload (base64; does not decode: ${payload.decodeError})`, payload.value);
  }
  return `${lines.join('\n')}\n`;
}

export function replaySummary(outcome: ReplayOutcome): string {
  const lines = [
    `replayed ${outcome.replayed} of ${outcome.selected} selected` +
      `${outcome.gone ? `; ${outcome.gone} left the index meanwhile` : ''}` +
      `${outcome.refused.length ? `; ${outcome.refused.length} refused` : ''}`,
    ...outcome.refused.map((r) => `  ${r.id}: ${r.reason}`),
  ];
  if (outcome.replayed > 0) lines.push('the outbox relay of a running worker publishes them');
  return `${lines.join('\n')}\n`;
}

export function purgeSummary(outcome: PurgeOutcome): string {
  return `purged ${outcome.purged} of ${outcome.selected} selected${outcome.gone ? `; ${outcome.gone} left the index meanwhile` : ''}\n`;
}

/** The kinds of failure in the index, one line each: count, code, topic, group (for --code etc.). */
export function kindsText(kinds: readonly DeadLetterKind[]): string {
  if (kinds.length === 0) return 'the index is empty\n';
  const lines = kinds.map((k) => `${String(k.count).padStart(6)}  ${k.code}  ${k.topic}  ${k.group}`);
  return `${'count'.padStart(6)}  --code  --topic  --group\n${lines.join('\n')}\n`;
}
