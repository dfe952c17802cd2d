import { setTimeout as sleep } from 'node:timers/promises';

import {
  allReady,
  lookAtStack,
  notReadyLine,
  readyLine,
  stackProblems,
  type StackService,
} from './stack-ready.js';

/**
 * `npm start`'s ready signal: `node stack-ready.cli.js gateway=URL translator=URL nli=URL worker=URL`
 * (the gateway first) looks at every process's GET /ready until all answer 200, waits up to
 * SETTLE_MS more for dependencies that are down (consumers joining their groups), then prints one
 * line: the gateway and console URLs and what is degraded and why. Exits 1 with the reasons when the
 * stack is not ready within TIMEOUT_MS.
 */
const LOOK_EVERY_MS = 250;
const LOOK_TIMEOUT_MS = 2500;
const SETTLE_MS = 30_000;
const TIMEOUT_MS = 180_000;

const services: StackService[] = process.argv.slice(2).map((arg) => {
  const at = arg.indexOf('=');
  return { name: arg.slice(0, at), url: arg.slice(at + 1) };
});
const gateway = services[0];
if (!gateway || services.some(({ name, url }) => name === '' || !URL.canParse(url))) {
  console.error('usage: stack-ready.cli.js gateway=URL [name=URL ...]');
  process.exit(2);
}

const started = performance.now();
const elapsed = () => performance.now() - started;
let readySince: number | undefined;
for (;;) {
  const looks = await lookAtStack(services, LOOK_TIMEOUT_MS);
  if (allReady(looks)) {
    readySince ??= elapsed();
    const problems = stackProblems(looks);
    if (problems.down.length === 0 || elapsed() - readySince >= SETTLE_MS) {
      console.error(readyLine(gateway.url, problems, elapsed() / 1000));
      break;
    }
  } else if (elapsed() >= TIMEOUT_MS) {
    console.error(notReadyLine(looks, elapsed() / 1000));
    process.exitCode = 1;
    break;
  }
  await sleep(LOOK_EVERY_MS);
}
