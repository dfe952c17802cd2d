// Reference for bench:merge: a minimal Node http server that reads one entity the way the gateway's
// query side does without its cache: the content store's read (source fields with their translations
// in the asked language, one query), merged into a JSON answer. Shows what the read cache saves.
// Env: PORT, DATABASE_URL, LANG_CODE. Runs the built packages (scripts/bench.sh builds them).
import { createServer } from 'node:http';

import { connectDatabase } from '@tp/db';
import { readFieldTranslations } from '@tp/pipeline';

const orm = await connectDatabase({ url: process.env.DATABASE_URL, poolMax: 10 });
const lang = process.env.LANG_CODE ?? 'en';

createServer(async (req, res) => {
  req.resume();
  const id = decodeURIComponent((req.url ?? '/').split('/').pop() ?? '');
  try {
    const rows = await readFieldTranslations(orm.em.fork(), 'vendor', [id], [lang]);
    const fields = {};
    for (const row of rows) fields[row.field] = row.translated_text ?? row.text;
    res.writeHead(200, { 'content-type': 'application/json', 'content-language': lang });
    res.end(JSON.stringify({ code: 0, data: { type: 'vendor', id, language: lang, fields } }));
  } catch {
    res.writeHead(503);
    res.end();
  }
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('reference ready'));
