/**
 * The actions a service account can be granted: the gateway routes of the `serviceAccount` access
 * class (document 2, section I), named `METHOD /path` exactly as gateway/src/routes/table.ts
 * writes them. tests/e2e/test/service-accounts.test.ts grants each route of that class alone and
 * checks that it opens that route and no other; a route added to the class must be added here.
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
