// A second reference for bench:translate: the floor of an Express app, i.e. express.json() and one
// Redis GET per request, nothing else (no validation, auth, limits, logs or metrics). The gap
// between this and the raw baseline is what the framework costs; the rest is the gateway's own.
import express from 'express';
import { createClient } from 'redis';

const redis = createClient({ url: process.env.REDIS_URL, commandOptions: { timeout: 0 } });
await redis.connect();
const key = process.env.KEY;

const app = express();
app.set('etag', false);
app.post('/', express.json(), (_req, res) => {
  redis.get(key).then(
    (value) => res.json({ code: 0, data: JSON.parse(value ?? 'null') }),
    () => res.status(503).end(),
  );
});
app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('express floor ready'));

// A normal exit on SIGTERM, so node's --cpu-prof (BENCH_CPU_PROF) writes its profile.
process.once('SIGTERM', () => process.exit(0));
