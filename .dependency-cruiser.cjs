// The dependency direction of the monorepo, checked by `npm run lint:deps` (and inside `npm test`).
// Layers, top to bottom: services -> libs -> schemas, contracts. tsconfig project references fix the
// build order but let an unreferenced import through, so this file is what holds the direction.
// Why dependency-cruiser: docs/decisions.md ("Boundaries are checked by dependency-cruiser").

// Use-case folders, per service (paths under services/<name>/src/). A use-case folder never imports a
// sibling use-case folder: what two of them share moves down to the service's shared folders (listed in
// the comment of each) or to a lib, and the service's root (main.ts, <service>.ts) wires them together.
// A folder that is not listed is shared: any folder of the same service may import it.
const useCases = {
  // Shared: auth/, http/, rate-limit/, compat/ (the DeepL and LibreTranslate language codes), and each module's own root files (e.g. content/entity-address.ts,
  // translate/translator-client.ts, keys/budgets/ which auth and chat charge against).
  gateway: [
    'admin/dead-letters',
    'admin/translate/config',
    'admin/translate/retranslate',
    'admin/translate/test-translation',
    'chat/usage',
    'compat-deepl',
    'compat-libretranslate',
    'content/read-content',
    'content/report-change',
    'moderation/moderate',
    'moderation/terms',
    'usage',
  ],
  // Shared: engines/ (the engine adapters), chain/ (the engine chain over them); translate/ is the
  // translation use case, consume-requests/ its Kafka driver (it names TranslateText's type only).
  translator: ['translate', 'consume-requests'],
  // Shared: http/ (fields, body parsing), model/, config/ (the settings store every use case reads).
  nli: ['classify', 'detect', 'status'],
  // Shared: the root files (config.ts, worker.ts).
  worker: [
    'dlq',
    'expire-text-translations',
    'index-dead-letters',
    'invalid-content',
    'outbox-relay',
    'plan-translations',
    'project-translations',
  ],
};

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// One rule per use-case folder: nothing in a sibling use-case folder of the same service may import it.
const siblingUseCaseRules = Object.entries(useCases).flatMap(([service, folders]) =>
  folders.map((folder) => {
    const base = `^services/${escapeRegExp(service)}/src/`;
    const others = folders.filter((other) => other !== folder).map(escapeRegExp);
    return {
      name: `no-sibling-use-case:${service}/${folder}`,
      severity: 'error',
      comment: `services/${service}/src/${folder} is a use case; its siblings do not import it (move what they share down).`,
      from: { path: `${base}(${others.join('|')})/`, pathNot: '\\.test\\.ts$' },
      to: {
        path: `${base}${escapeRegExp(folder)}/`,
        // A type-only import of the port a sibling exposes is allowed: the service root wires the two
        // together, the importer only names the shape it is given.
        dependencyTypesNot: ['type-only'],
      },
    };
  }),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'libs-not-to-services',
      severity: 'error',
      comment: 'libs/ sit below the services: a lib never imports a service.',
      from: { path: '^(libs|schemas|contracts)/' },
      to: { path: '^services/' },
    },
    {
      name: 'schemas-contracts-not-to-libs',
      severity: 'error',
      comment: 'schemas/ and contracts/ are the bottom layer: they import no lib and no service.',
      from: { path: '^(schemas|contracts)/', pathNot: '\\.test\\.ts$' },
      to: { path: '^(libs|services|infra|tools)/' },
    },
    {
      name: 'no-service-to-other-service',
      severity: 'error',
      comment: 'A service never imports another service; they talk over HTTP and Kafka.',
      from: { path: '^services/([^/]+)/src/', pathNot: '\\.test\\.ts$' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'service-tests-use-other-services-through-fixtures',
      severity: 'error',
      comment:
        "A service's tests may start another service only through that service's test fixture (services/<name>/test/).",
      from: { path: '^services/([^/]+)/(src/.+\\.test\\.ts$|test/)' },
      to: { path: '^services/', pathNot: ['^services/$1/', '^services/[^/]+/test/'] },
    },
    ...siblingUseCaseRules,
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles, type-only ones included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'harness-by-package-name',
      severity: 'error',
      comment: "Code outside test/ imports the harness as '@tp/test/harness/<file>', not by a relative path.",
      from: { path: '^(libs|services|infra|tools|schemas|contracts|bench)/' },
      // The package name resolves to the same file, so only the kind of import (relative = 'local') tells.
      to: { path: '^test/', dependencyTypes: ['local'], dependencyTypesNot: ['aliased'] },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    exclude: { path: ['(^|/)dist/', '(^|/)node_modules/', '^\\.run/', '^infra/kafka/lib/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Workspace packages resolve to their TypeScript sources, as in jest and tsc (the "@tp/source" condition).
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@tp/source', 'import', 'types', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
      mainFields: ['module', 'main', 'types'],
    },
    skipAnalysisNotInRules: true,
  },
};
