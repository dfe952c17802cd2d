// The OpenAI-compatible upstream double (test/doubles/openai.double.ts) in a process of its own, for
// npm run bench:chat: prints its base URL (ending in /v1) as the first line on stdout, then serves
// until killed. Env: UPSTREAM_API_KEY, UPSTREAM_MODEL, UPSTREAM_CHUNK_DELAY_MS (default 0).
import { startOpenAiDouble } from '@tp/test/doubles/openai.double';

const double = await startOpenAiDouble({
  name: 'bench',
  apiKey: process.env.UPSTREAM_API_KEY ?? 'sk-bench-upstream',
  models: [process.env.UPSTREAM_MODEL ?? 'gpt-bench'],
  chunkDelayMs: Number(process.env.UPSTREAM_CHUNK_DELAY_MS ?? 0),
});
// The double records every request for tests; a bench sends hundreds of thousands, so forget them.
setInterval(() => double.reset(), 1000).unref();
process.once('SIGTERM', () => {
  void double.close().then(() => process.exit(0));
});
console.log(double.url);
