// The reference of bench:translate and bench:merge: a minimal Express app, nothing but the framework
// the design names and one Redis GET per request (no validation, auth, limits, logs or metrics). The
// gateway's verdicts are ratios against it: what the gateway adds on top is its own cost.
//   POST /       express.json(), GET KEY, answers {code: 0, data: <the value parsed>} (bench:translate)
//   GET /v/:id   GET KEY, answers the value as it is stored: the same bytes as the gateway's answer
//                (bench:merge stores the gateway's own answer there)
// Env: PORT, REDIS_URL, KEY.
import express from 'express';
import { createClient } from 'redis';

// Same client settings as the gateway's (no per-command timeout signal), so the comparison is fair.
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
app.get('/v/:id', (_req, res) => {
  redis.get(key).then(
    (value) => res.type('application/json').send(value ?? 'null'),
    () => res.status(503).end(),
  );
});
app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('express reference ready'));

// A normal exit on SIGTERM, so node's --cpu-prof (BENCH_CPU_PROF) writes its profile.
process.once('SIGTERM', () => process.exit(0));
