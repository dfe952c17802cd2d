// The entry of a service an end-to-end test runs with some named constants shortened: what
// services/<name>/dist/main.js does, with the test's constants handed to the config loader in-process
// (its overrides, as the in-process fixtures do). The constants come as JSON in the arguments, never
// from the environment: a deployment cannot set them. Started by processes.ts's runService.
import { runService } from '@tp/runtime';

const [name, tuningJson] = process.argv.slice(2);
const service = await import(`@tp/${name}`);
const title = `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
const tuning = JSON.parse(tuningJson);
await runService(name, () => service[`start${title}`](service[`load${title}Config`](process.env, tuning)));
