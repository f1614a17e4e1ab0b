/**
 * The actions a service account can be granted: the gateway routes of the `serviceAccount` access
 * class (document 2, section I), named `METHOD /path` exactly as gateway/src/routes/table.ts
 * writes them. An end-to-end test checks this list against the route table.
 */
export const SERVICE_ACCOUNT_ACTIONS: readonly string[] = [
  'DELETE /integrations/external/subscription',
  'GET /integrations/external/subscription',
  'GET /integrations/external/transaction',
  'POST /integrations/external/subscription',
  'PUT /integrations/external/refund',
  'PUT /integrations/external/subscription',
];

/** "get  /integrations/x" → "GET /integrations/x": the method in capitals, one space. */
export function normalizeAction(text: string): string {
  const [method = '', ...path] = text.trim().split(/\s+/);
  return [method.toUpperCase(), ...path].join(' ');
}
