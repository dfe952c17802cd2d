// Every call goes to the admin API on this origin with the key as a Bearer header. The key lives in
// sessionStorage (this tab only, gone when it closes) and never in a URL.

const KEY_ITEM = 'tp-console-admin-key';

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY_ITEM),
  signIn: (key: string): void => sessionStorage.setItem(KEY_ITEM, key),
  signOut: (): void => sessionStorage.removeItem(KEY_ITEM),
};

/** A refused or failed call, with the API's stable error name when it gave one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Called when the API refuses the key (401): the console signs out. */
let onUnauthorised: () => void = () => undefined;
export const whenUnauthorised = (handler: () => void) => (onUnauthorised = handler);

export type Query = Record<string, string | number | undefined>;

export async function api<T>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const qs = params.size > 0 ? `?${params.toString()}` : '';
  const headers: Record<string, string> = {};
  const key = session.key();
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${path}${qs}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json().catch(() => ({}))) as { data?: T; error?: string; message?: string };
  if (!res.ok) {
    if (res.status === 401) onUnauthorised();
    throw new ApiError(res.status, json.error ?? `HTTP_${res.status}`, json.message ?? res.statusText);
  }
  return json.data as T;
}

export const describeError = (err: unknown): string =>
  err instanceof ApiError ? `${err.code} (${err.status}): ${err.message}` : String(err);
