import { ServiceClient } from '../http/service-client.js';

/** HTTP client of the internal nli service; its answers are typed by the schemas in nli.schemas.ts. */
export class NliClient {
  private readonly client: ServiceClient;

  constructor(baseUrl: string, timeoutMs: number) {
    this.client = new ServiceClient('nli', baseUrl, timeoutMs, 'NLI_UNAVAILABLE');
  }

  detect<T>(text: string, requestId: string, signal?: AbortSignal): Promise<T> {
    return this.client.call<T>('/detect', { method: 'POST', body: { text }, requestId, signal });
  }

  classify<T>(body: unknown, requestId: string, signal?: AbortSignal): Promise<T> {
    return this.client.call<T>('/classify', { method: 'POST', body, requestId, signal });
  }

  status<T>(requestId: string): Promise<T> {
    return this.client.call<T>('/status', { requestId });
  }

  config<T>(requestId: string): Promise<T> {
    return this.client.call<T>('/config', { requestId });
  }

  updateConfig<T>(body: unknown, requestId: string): Promise<T> {
    return this.client.call<T>('/config', { method: 'PUT', body, requestId });
  }
}
