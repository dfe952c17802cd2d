import {
  classification,
  detection,
  nliConfig,
  nliStatus,
  type classifyRequest,
  type configUpdate,
} from '@tp/service-contracts';
import type { z } from 'zod';

import { ServiceClient } from '../http/service-client.js';

/** HTTP client of the internal nli service; each answer is checked against its contract. */
export class NliClient {
  private readonly client: ServiceClient;

  constructor(baseUrl: string, timeoutMs: number) {
    this.client = new ServiceClient('nli', baseUrl, timeoutMs, 'NLI_UNAVAILABLE');
  }

  detect(text: string, requestId: string, signal?: AbortSignal) {
    return this.client.call('/detect', detection, { method: 'POST', body: { text }, requestId, signal });
  }

  classify(body: z.input<ReturnType<typeof classifyRequest>>, requestId: string, signal?: AbortSignal) {
    return this.client.call('/classify', classification, { method: 'POST', body, requestId, signal });
  }

  status(requestId: string) {
    return this.client.call('/status', nliStatus, { requestId });
  }

  config(requestId: string) {
    return this.client.call('/config', nliConfig, { requestId });
  }

  updateConfig(body: z.input<ReturnType<typeof configUpdate>>, requestId: string) {
    return this.client.call('/config', nliConfig, { method: 'PUT', body, requestId });
  }
}
