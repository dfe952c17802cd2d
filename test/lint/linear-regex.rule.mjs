// ESLint rule tp/linear-regex: a regular expression in production code must run in linear time, or say
// why it never sees user text. Why and how "user text" is told apart: docs/decisions.md, "Patterns on
// user text run in linear time".
//
// V8 backtracks. A pattern whose every quantifier is bounded (`{0,8}`, `?`, no `*`, `+` or `{n,}`)
// and that has no backreference costs at most a constant per start position, so even a global search
// over 50,000 characters is linear. Anything else is reported unless a comment directly above the
// expression (or its statement), or at the end of its line, reads `not user text: <why>`. Text from
// clients and from engines' answers goes through the hand-written scanners instead (libs/runtime
// text.ts, services/translator/src/chain/span-scanner.ts).
import { RegExpParser, visitRegExpAST } from '@eslint-community/regexpp';

const MARKER = 'not user text:';
/** Most steps nested bounded quantifiers may multiply to (e.g. `(?:a{1,8}){1,31}` is 248). */
const MAX_NESTED_STEPS = 1000;

/** Why the pattern is not linear by construction, or undefined. */
export function nonLinearReason(source, flags) {
  let ast;
  try {
    ast = new RegExpParser().parsePattern(source, 0, source.length, {
      unicode: flags.includes('u'),
      unicodeSets: flags.includes('v'),
    });
  } catch {
    return 'it cannot be parsed';
  }
  let reason;
  const steps = [1];
  visitRegExpAST(ast, {
    onQuantifierEnter(node) {
      if (node.max === Infinity) reason ??= `\`${node.raw}\` has no upper bound`;
      const product = steps[steps.length - 1] * Math.max(node.max, 1);
      if (product > MAX_NESTED_STEPS)
        reason ??= `nested quantifiers allow more than ${MAX_NESTED_STEPS} steps`;
      steps.push(product);
    },
    onQuantifierLeave() {
      steps.pop();
    },
    onBackreferenceEnter(node) {
      reason ??= `the backreference \`${node.raw}\` can take exponential time`;
    },
  });
  return reason;
}

/** The pattern and flags of `/x/g`, `new RegExp('x', 'g')`, `RegExp(String.raw\`x\`)`; null when computed. */
function patternOf(node) {
  if (node.type === 'Literal' && node.regex) return { source: node.regex.pattern, flags: node.regex.flags };
  const [pattern, flags] = node.arguments;
  const text = staticString(pattern);
  if (text === undefined) return null;
  return { source: text, flags: flags === undefined ? '' : (staticString(flags) ?? '') };
}

function staticString(node) {
  if (!node) return undefined;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'Literal' && node.regex) return node.regex.pattern;
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked;
  if (
    node.type === 'TaggedTemplateExpression' &&
    node.tag.type === 'MemberExpression' &&
    node.tag.object.name === 'String' &&
    node.tag.property.name === 'raw' &&
    node.quasi.expressions.length === 0
  ) {
    return node.quasi.quasis[0].value.raw;
  }
  return undefined;
}

function marked(context, node) {
  const sourceCode = context.sourceCode;
  const lines = new Set([node.loc.start.line - 1, node.loc.start.line]);
  let statement = node;
  while (statement.parent && !/Statement|Declaration$/.test(statement.type)) statement = statement.parent;
  lines.add(statement.loc.start.line - 1);
  return sourceCode
    .getAllComments()
    .some((comment) => lines.has(comment.loc.end.line) && comment.value.includes(MARKER));
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'regular expressions on user text must run in linear time' },
    schema: [],
    messages: {
      nonLinear:
        'This regular expression may backtrack on long input ({{reason}}). Use the linear scanners (libs/runtime/src/text.ts) or bounded quantifiers; if it never sees user text, say why in a `// not user text: ...` comment above it.',
      computed:
        'A regular expression built at run time cannot be checked for linear time. If it never sees user text, say why in a `// not user text: ...` comment above it.',
    },
  },
  create(context) {
    const check = (node) => {
      const pattern = patternOf(node);
      if (pattern === null) {
        if (!marked(context, node)) context.report({ node, messageId: 'computed' });
        return;
      }
      const reason = nonLinearReason(pattern.source, pattern.flags);
      if (reason && !marked(context, node))
        context.report({ node, messageId: 'nonLinear', data: { reason } });
    };
    const isRegExpCall = (node) => node.callee.type === 'Identifier' && node.callee.name === 'RegExp';
    return {
      Literal(node) {
        if (node.regex) check(node);
      },
      NewExpression(node) {
        if (isRegExpCall(node)) check(node);
      },
      CallExpression(node) {
        if (isRegExpCall(node)) check(node);
      },
    };
  },
};

export default { rules: { 'linear-regex': rule } };
