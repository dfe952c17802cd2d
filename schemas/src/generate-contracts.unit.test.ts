import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from '@jest/globals';

import { GENERATED_CONTRACTS_PATH, generateContracts } from './generate-contracts.js';
import { SchemaRegistry } from './registry.js';

describe('generated contracts', () => {
  it('contracts/src/generated/events.ts matches the .avsc files (run `npm run contracts:gen` after a schema change)', () => {
    const committed = readFileSync(
      fileURLToPath(new URL(`../../${GENERATED_CONTRACTS_PATH}`, import.meta.url)),
      'utf8',
    );
    expect(committed).toEqual(generateContracts(SchemaRegistry.load()));
  });

  it('types the event type as a literal so events form a discriminated union', () => {
    const source = generateContracts(SchemaRegistry.load());
    expect(source).toContain("readonly eventType: 'TranslationCompleted';");
    expect(source).toMatch(
      /export type IntegrationEvent = ContentChanged \| ContentDeleted \| DeadLetter \| TranslationCompleted \| TranslationRequested;/,
    );
  });
});
