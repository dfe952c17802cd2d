// The benchmark baseline: a minimal Node http server doing one Redis GET per request and answering
// the value as JSON. Whatever the gateway adds (routing, validation, rate limit, logging) shows up as
// the difference to this. Env: PORT, REDIS_URL, KEY.
import { createServer } from 'node:http';

import { createClient } from 'redis';

// Same client settings as the gateway's (no per-command timeout signal), so the comparison is fair.
const redis = createClient({ url: process.env.REDIS_URL, commandOptions: { timeout: 0 } });
await redis.connect();
const key = process.env.KEY;

createServer((req, res) => {
  req.resume();
  redis.get(key).then(
    (value) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 0, data: JSON.parse(value ?? 'null') }));
    },
    () => {
      res.writeHead(503);
      res.end();
    },
  );
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('baseline ready'));

// A normal exit on SIGTERM, so node's --cpu-prof (BENCH_CPU_PROF) writes its profile.
process.once('SIGTERM', () => process.exit(0));
