import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { GENERATED_CONTRACTS_PATH, generateContracts } from './generate-contracts.js';
import { SchemaRegistry } from './registry.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const target = `${repoRoot}${GENERATED_CONTRACTS_PATH}`;
writeFileSync(target, generateContracts(SchemaRegistry.load()));
console.log(`wrote ${GENERATED_CONTRACTS_PATH}`);
