// Reference for bench:merge: a minimal Node http server that reads one entity the way the gateway's
// query side does without its cache: one query for the source fields, one for the translations in
// the asked language, merged into a JSON answer. Shows what the read cache saves.
// Env: PORT, DATABASE_URL, LANG_CODE.
import { createServer } from 'node:http';

import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const lang = process.env.LANG_CODE ?? 'en';

createServer(async (req, res) => {
  req.resume();
  const id = decodeURIComponent((req.url ?? '/').split('/').pop() ?? '');
  try {
    const [sources, translations] = await Promise.all([
      pool.query(
        'select field, text, source_hash from source_contents where entity_type = $1 and entity_id = $2',
        ['vendor', id],
      ),
      pool.query(
        'select field, translated_text, source_hash from content_translations where entity_type = $1 and entity_id = $2 and target_lang = $3',
        ['vendor', id, lang],
      ),
    ]);
    const translated = new Map(translations.rows.map((r) => [r.field, r]));
    const fields = {};
    for (const row of sources.rows) {
      const t = translated.get(row.field);
      fields[row.field] = t && t.source_hash === row.source_hash ? t.translated_text : row.text;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-language': lang });
    res.end(JSON.stringify({ code: 0, data: { type: 'vendor', id, language: lang, fields } }));
  } catch {
    res.writeHead(503);
    res.end();
  }
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('reference ready'));
