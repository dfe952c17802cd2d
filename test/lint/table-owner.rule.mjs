// ESLint rule tp/table-owner: only a table's owner names it in SQL (docs/decisions.md, "One owner per
// table"). Options: `owners`, table -> the path prefixes (folders or files, from the repository root)
// that own it; `ddl`, prefixes that may name every table (the migrations, which define them).
// A string literal, a template literal, or a chain of them joined with `+`, names a table in SQL when
// the table follows a keyword that takes one (from, join, insert into, update, table, truncate,
// vacuum, analyze), alone or in a list.
import path from 'node:path';

const KEYWORDS = 'from|join|insert\\s+into|update|table|truncate|vacuum(?:\\s+analyze)?|analyze';

/** The tables `sql` names after a keyword (a list after it too: `from a, b`, `vacuum a, b`), each once. */
export function tablesNamedIn(sql, tables) {
  if (tables.length === 0) return [];
  const wanted = new Set(tables);
  // not user text: source code of this repository, read by the linter
  const pattern = new RegExp(`\\b(?:${KEYWORDS})\\s+(?:only\\s+)?([\\w"]+(?:\\s*,\\s*[\\w"]+)*)`, 'gi');
  const named = [...sql.matchAll(pattern)].flatMap((m) =>
    m[1].split(',').map((name) => name.trim().replaceAll('"', '').toLowerCase()),
  );
  return [...new Set(named.filter((name) => wanted.has(name)))];
}

/** The text of a literal, or of a `+` chain of them (anything else stands as a space). */
function textOf(node) {
  if (node.type === 'Literal') return typeof node.value === 'string' ? node.value : ' ';
  if (node.type === 'TemplateLiteral') return node.quasis.map((q) => q.value.cooked ?? '').join(' ');
  if (node.type === 'BinaryExpression' && node.operator === '+') {
    return textOf(node.left) + textOf(node.right);
  }
  return ' ';
}

const isChain = (node) => node?.type === 'BinaryExpression' && node.operator === '+';

export default {
  rules: {
    'table-owner': {
      meta: {
        type: 'problem',
        docs: { description: 'Only the module that owns a table names it in SQL' },
        schema: [
          {
            type: 'object',
            properties: {
              owners: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
              ddl: { type: 'array', items: { type: 'string' } },
            },
            additionalProperties: false,
          },
        ],
        messages: {
          notOwner: '{{table}} is named in SQL outside its owner ({{owners}}): call the owner instead.',
        },
      },
      create(context) {
        const { owners = {}, ddl = [] } = context.options[0] ?? {};
        const file = path.relative(context.cwd, context.filename).split(path.sep).join('/');
        if (ddl.some((prefix) => file.startsWith(prefix))) return {};
        const foreign = Object.keys(owners).filter(
          (table) => !owners[table].some((prefix) => file.startsWith(prefix)),
        );
        const check = (node) => {
          // A literal inside a `+` chain is checked with the whole chain, once.
          if (isChain(node.parent)) return;
          for (const table of tablesNamedIn(textOf(node), foreign)) {
            context.report({
              node,
              messageId: 'notOwner',
              data: { table, owners: owners[table].join(', ') },
            });
          }
        };
        return {
          Literal: check,
          TemplateLiteral: check,
          BinaryExpression: (node) => isChain(node) && check(node),
        };
      },
    },
  },
};
