// A reference for bench:chat: the floor of any Node relay, i.e. a raw http server that forwards the
// request body to the upstream with undici and pipes the answer back, nothing else (no auth, limits,
// validation, guardrail, logs or usage). The gap between it and a direct call is what one extra Node
// hop costs on this machine; the rest of the gateway's figure is the gateway's own. Env: PORT,
// UPSTREAM_URL (ending in /v1), UPSTREAM_API_KEY.
import { createServer } from 'node:http';
import { pipeline } from 'node:stream/promises';

import { request } from 'undici';

const url = `${process.env.UPSTREAM_URL}/chat/completions`;
const authorization = `Bearer ${process.env.UPSTREAM_API_KEY}`;

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: Buffer.concat(chunks),
    })
      .then(async (answer) => {
        res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type']) });
        await pipeline(answer.body, res);
      })
      .catch(() => res.destroy());
  });
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('proxy floor ready'));
