import { CompressionTypes } from 'kafkajs';

/** The codecs a producer may use: gzip is built into kafkajs (see docs/kafka.md for the others). */
const CODECS = { none: CompressionTypes.None, gzip: CompressionTypes.GZIP } as const;
export type CodecName = keyof typeof CODECS;

/** The codec of each topic (by its name without the topic prefix). */
export type CompressionPolicy = (topic: string) => CompressionTypes;

/**
 * Reads KAFKA_COMPRESSION: comma-separated items, each a codec for every topic (`gzip`) or for one
 * topic, named without the prefix (`translation.requested.v1=gzip`); the last item naming a topic
 * wins, and topics not named use the bare codec (default `none`). Throws on anything else, so a typo
 * fails the start instead of silently sending uncompressed.
 */
export function parseCompression(value: string): { default: CodecName; topics: Record<string, CodecName> } {
  const parsed = { default: 'none' as CodecName, topics: {} as Record<string, CodecName> };
  for (const item of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [topic, codec] = item.includes('=') ? item.split('=', 2).map((s) => s.trim()) : [undefined, item];
    if (!codec || !(codec in CODECS)) {
      throw new Error(`${JSON.stringify(item)}: the codec must be one of ${Object.keys(CODECS).join(', ')}`);
    }
    if (topic === undefined) parsed.default = codec as CodecName;
    else if (topic === '') throw new Error(`${JSON.stringify(item)}: topic name missing`);
    else parsed.topics[topic] = codec as CodecName;
  }
  return parsed;
}

/** The policy of a KAFKA_COMPRESSION value for topics named with `prefix`. */
export function compressionPolicy(value: string, prefix = ''): CompressionPolicy {
  const parsed = parseCompression(value);
  return (topic) => {
    const name = prefix && topic.startsWith(prefix) ? topic.slice(prefix.length) : topic;
    return CODECS[parsed.topics[name] ?? parsed.default];
  };
}
