import { gatewaySettings } from '@tp/gateway';
import { topicSettings } from '@tp/kafka';
import { nliSettings } from '@tp/nli';
import { stackSettings } from '@tp/platform';
import { translatorSettings } from '@tp/translator';
import { workerSettings } from '@tp/worker';

import type { SettingsSource } from './configuration-doc.js';

/** The typed settings of each service, in the order docs/configuration.md lists them. */
export const serviceSettings: readonly SettingsSource[] = [
  { program: 'gateway', shape: gatewaySettings.shape },
  { program: 'translator', shape: translatorSettings.shape },
  { program: 'nli', shape: nliSettings.shape },
  { program: 'worker', shape: workerSettings.shape },
];

/** The settings of the commands around the services. */
export const toolSettings: readonly SettingsSource[] = [
  { program: 'npm start', shape: stackSettings },
  { program: 'npm run topics', shape: topicSettings },
];
