import { afterAll, beforeAll, beforeEach } from '@jest/globals';
import { connectDatabase, type Orm } from '@tp/db';
import { DeadLetterIndex } from '@tp/pipeline';

import { clearDeadLetters } from '@tp/test/harness/dead-letters';
import { startTestGateway, type TestGateway } from './gateway-fixture.js';
import { OpenApiContract } from './openapi-contract.js';

/** What a test file of the admin dead-letter routes works with; filled in by its beforeAll. */
export interface DeadLettersFixture {
  readonly gateway: TestGateway;
  readonly orm: Orm;
  /** The index the worker fills, on the gateway's database, to seed entries. */
  readonly index: DeadLetterIndex;
  /** The OpenAPI document the gateway serves, to check every answer against. */
  readonly contract: OpenApiContract;
}

/**
 * Registers the hooks of a test file of the admin dead-letter routes: a real gateway with a database
 * of its own, the dead-letter index on it, and no dead letters before each test. Read the fixture's
 * fields inside tests.
 */
export function useDeadLettersGateway(): DeadLettersFixture {
  const fixture = {} as { -readonly [K in keyof DeadLettersFixture]: DeadLettersFixture[K] };
  beforeAll(async () => {
    fixture.gateway = await startTestGateway();
    fixture.orm = await connectDatabase({ url: fixture.gateway.config.DATABASE_URL, poolMax: 2 });
    fixture.index = new DeadLetterIndex(fixture.orm);
    fixture.contract = new OpenApiContract(fixture.gateway.openapi);
  });
  afterAll(async () => {
    await fixture.orm?.close(true);
    await fixture.gateway?.close();
  });
  beforeEach(() => clearDeadLetters(fixture.orm));
  return fixture;
}
