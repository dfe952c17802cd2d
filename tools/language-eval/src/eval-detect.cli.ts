// npm run eval:detect [-- --check] [-- --compare] [-- --rebuild] [-- --per-language N]
// Measures language detection per language on the corpus of human-written sentences that
// `buildCorpus` assembles from Debian's translation catalogues (cached under var/detect-corpus/).
// --check exits 1 when a published language is under the goal (97%); --compare also measures the
// candidate libraries of docs/decisions.md "Language detection".
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { buildCorpus, type Corpus } from './corpus/build-corpus.js';
import { CANDIDATES, packageBytes } from './eval/candidates.js';
import { GOAL, accuracy, evaluate, missed, scoreTable } from './eval/evaluate.js';

const { values } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    compare: { type: 'boolean', default: false },
    rebuild: { type: 'boolean', default: false },
    'per-language': { type: 'string', default: '300' },
  },
});
const perLanguage = Number(values['per-language']);
const folder = fileURLToPath(new URL('../../../var/detect-corpus/', import.meta.url));
const file = join(folder, `corpus-${perLanguage}.json`);

const corpus = await loadOrBuild();
console.log(
  `corpus: ${corpus.entries.length} sentences of 25-200 characters, ${perLanguage} per language, from ${Object.keys(corpus.packages).length} Debian packages' catalogues (${file})\n`,
);
const [ours, ...others] = CANDIDATES;
const scores = await measure(ours!);
console.log(`${ours!.name}\n\n${scoreTable(scores.scores)}\n\n${scores.summary}\n`);
if (values.compare) {
  for (const candidate of others) {
    const result = await measure(candidate);
    console.log(`${candidate.name}\n\n${scoreTable(result.scores)}\n\n${result.summary}\n`);
  }
}
const under = missed(scores.scores);
if (under.length > 0) {
  console.log(`under ${GOAL * 100}%: ${under.map((score) => score.language).join(', ')}`);
  if (values.check) process.exitCode = 1;
} else {
  console.log(`every published language at ${GOAL * 100}% or more`);
}

async function loadOrBuild(): Promise<Corpus> {
  if (!values.rebuild) {
    try {
      return JSON.parse(await readFile(file, 'utf8')) as Corpus;
    } catch {
      // not built yet
    }
  }
  const built = await buildCorpus(perLanguage);
  await mkdir(folder, { recursive: true });
  await writeFile(file, JSON.stringify(built));
  return built;
}

async function measure(candidate: (typeof CANDIDATES)[number]) {
  const detect = await candidate.open();
  const started = performance.now();
  // The raw libraries do not tell zh-CN from zh-TW: their `zh` counts for either.
  const scores = evaluate(corpus.entries, detect, (language, answer) =>
    candidate.combined
      ? language === answer
      : language === answer || (answer === 'zh' && language.startsWith('zh-')),
  );
  const ms = (performance.now() - started) / corpus.entries.length;
  const published = scores.filter((score) => score.published);
  const worst = Math.min(...published.map(accuracy));
  const megabytes = (await packageBytes(candidate.packages)) / 1e6;
  const summary = `${ms.toFixed(3)} ms a sentence, ${megabytes.toFixed(1)} MB on disk, worst published language ${(100 * worst).toFixed(1)}%`;
  return { scores, summary };
}
