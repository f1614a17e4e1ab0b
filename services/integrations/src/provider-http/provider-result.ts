import { isSuccess, objectBody, ProviderUnavailable, type ProviderResponse } from './provider-http.js';

/**
 * A provider's answer to one call: its JSON object on success, or its error object (whatever
 * shape the provider documents) with the status. No answer at all is ProviderUnavailable.
 */
export type ProviderResult<T = Record<string, unknown>> =
  { ok: true; status: number; body: T } | { ok: false; status: number; error: Record<string, unknown> };

/** Reads a response: success with its object body (`{}` when empty), or the error object. */
export function resultOf(response: ProviderResponse): ProviderResult {
  const body = objectBody(response.body);
  if (isSuccess(response)) return { ok: true, status: response.status, body: body ?? {} };
  return { ok: false, status: response.status, error: body ?? { status: response.status, detail: String(response.body ?? '') } };
}

/** The array a success holds under `key` (objects only), or undefined for a failure or another shape. */
export function itemsOf(result: ProviderResult, key: string): Array<Record<string, unknown>> | undefined {
  if (!result.ok) return undefined;
  const items = result.body[key];
  if (!Array.isArray(items)) return undefined;
  return items.filter((item): item is Record<string, unknown> => objectBody(item) !== undefined);
}

/** The provider's answer, or undefined when it gave none (the "falsey adapter result"). */
export async function answered(call: Promise<ProviderResult>): Promise<ProviderResult | undefined> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ProviderUnavailable) return undefined;
    throw error;
  }
}
