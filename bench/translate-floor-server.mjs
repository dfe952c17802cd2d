// A reference for bench:apertium: the floor of the hops the architecture puts on a cache miss, i.e.
// client -> gateway (one Redis GET) -> translator -> APy, with nothing else. Two roles:
//   ROLE=front: reads the JSON body, GETs the text's key from Redis (never set: always a miss), then
//               POSTs the body to NEXT_URL and answers what it got;
//   ROLE=back:  reads the JSON body, POSTs the text to APy with the form our engine sends
//               (apertium.engine.ts) and answers {"translated": ...}.
// No auth, limits, validation, chain, cache write, outbox, logs, metrics or traces: the gap between
// this pair and APy alone is what two Node hops and a Redis read cost on this machine; the rest of the
// gateway's figure is our own. Env: ROLE, PORT, and REDIS_URL + REDIS_KEY_PREFIX + NEXT_URL (front)
// or APERTIUM_URL (back).
import { createServer } from 'node:http';
import { URLSearchParams } from 'node:url';

import { createClient } from 'redis';
import { request } from 'undici';

const env = process.env;

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (err) {
        reject(err); // a 502, not an exception thrown from the stream's event
      }
    });
    req.on('error', reject);
  });
}

function sendJson(res, json) {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

async function front() {
  const redis = createClient({ url: env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
  await redis.connect();
  return async (req, res) => {
    const body = await readBody(req);
    const cached = await redis.get(
      `${env.REDIS_KEY_PREFIX ?? 'floor:'}${body.source}:${body.target}:${body.text}`,
    );
    if (cached) return sendJson(res, cached);
    const answer = await request(env.NEXT_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = await answer.body.text(); // read even when refused, so the connection is reused
    if (answer.statusCode !== 200) throw new Error(`next hop answered ${answer.statusCode}`);
    sendJson(res, json);
  };
}

function back() {
  const url = `${env.APERTIUM_URL}/translate`;
  return async (req, res) => {
    const body = await readBody(req);
    const form = new URLSearchParams({
      langpair: 'eng|spa',
      q: body.text,
      markUnknown: 'yes',
      deformat: 'html',
      reformat: 'html-noent',
    }).toString();
    const answer = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    const reply = await answer.body.json();
    if (answer.statusCode !== 200) throw new Error(`APy answered ${answer.statusCode}`);
    sendJson(res, JSON.stringify({ translated: reply.responseData.translatedText }));
  };
}

const handle = env.ROLE === 'front' ? await front() : back();
createServer((req, res) => {
  if (req.method === 'GET') return res.end('ok'); // health
  handle(req, res).catch(() => {
    res.statusCode = 502;
    res.end();
  });
}).listen(Number(env.PORT), '127.0.0.1', () => console.log(`translate floor (${env.ROLE}) ready`));
