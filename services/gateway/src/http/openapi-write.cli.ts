// npm run openapi:write: writes services/gateway/openapi.json, the reviewed copy of the document the
// gateway serves at GET /openapi.json, from the gateway's own routes under its default settings. Run it
// after changing a route and commit the file with the change: the API change then shows in review, and
// the contract test (contract.int.test.ts) fails while the served document and the file differ.
// Connects to nothing: the routes are built, never called (MikroORM and the clients connect lazily).
import { writeFile } from 'node:fs/promises';

import { unconnectedDatabase } from '@tp/db';
import { createLogger } from '@tp/runtime';
import { Registry } from 'prom-client';

import { loadGatewayConfig } from '../config.js';
import { composeGateway, gatewayDocument } from '../gateway.js';
import { COMMITTED_OPENAPI, openApiFileText } from './openapi.js';

// Settings from the defaults only, so the file does not depend on the shell that wrote it.
const config = { ...loadGatewayConfig({}), PORT: 0 };
const orm = await unconnectedDatabase({ url: config.DATABASE_URL });
try {
  const context = {
    logger: createLogger('openapi-write', 'silent'),
    metrics: new Registry(),
    deps: { orm, checks: [], close: async () => undefined },
  };
  const { routes } = composeGateway(config, context);
  const document = JSON.parse(JSON.stringify(gatewayDocument(routes))) as unknown;
  await writeFile(COMMITTED_OPENAPI, openApiFileText(document));
  process.stdout.write(`wrote ${COMMITTED_OPENAPI.pathname}\n`);
} finally {
  await orm.close(true);
}
