import type { EventCodec } from '@tp/schemas';

/** A dead letter's payload for people: the decoded event when the codec can read it, else the bytes. */
export type PayloadView =
  | { readonly encoding: 'json'; readonly value: unknown }
  | { readonly encoding: 'base64'; readonly value: string; readonly decodeError: string };

export function payloadView(
  codec: EventCodec,
  payload: Buffer,
  headers: Readonly<Record<string, string>>,
): PayloadView {
  try {
    return { encoding: 'json', value: jsonSafe(codec.decode(payload, headers)) };
  } catch (err) {
    return { encoding: 'base64', value: payload.toString('base64'), decodeError: (err as Error).message };
  }
}

/** Avro bytes fields come back as Buffers; JSON shows them as base64. */
function jsonSafe(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonSafe(v)]));
  }
  return value;
}
