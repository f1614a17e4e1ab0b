import type { Stack } from './stack.js';
import { createTenant } from './tenant.js';

/** The stack reached something other than its own servers; starting it again on new ports is the cure. */
export class StackMiswiredError extends Error {
  override readonly name = 'StackMiswiredError';
}

/**
 * Proves that the gateway's port answers as this stack's gateway, and that the gateway and
 * identity reach an accounts service that knows this stack's resources: a resource made through
 * the operator's accounts client is known on `GET /idp/account`, which the gateway resolves by
 * key and identity by ID (an ID is only as telling as it is new to a stranger's accounts).
 * The probe resource configures no identity provider, so the answer is 409 service_not_active,
 * or 200 where a file's settings give every resource one.
 *
 * Twice in CI a whole file met another server: once a gRPC server answered HTTP/1.1 on the
 * gateway's port; once every resource the file made was unknown to its gateway (404
 * resource_not_exists). Such a file fails in every test, so the stack refuses to start instead,
 * saying what it met.
 */
export async function expectWiredToItself(stack: Pick<Stack, 'operator' | 'baseUrl'>): Promise<void> {
  const probe = await createTenant(stack);
  const answer = await fetch(`${stack.baseUrl}/idp/account`, { headers: { resource: probe.publicKey } }).then(
    async (response) => ({ status: response.status, body: (await response.text()).slice(0, 300) }),
    (error: unknown) => ({ status: 0, body: error instanceof Error ? error.message : String(error) }),
  );
  const known = answer.status === 200 || (answer.status === 409 && answer.body.includes('"service_not_active"'));
  if (!known) {
    throw new StackMiswiredError(`${stack.baseUrl} does not know the stack's probe resource: ${answer.status} ${answer.body}`);
  }
}
