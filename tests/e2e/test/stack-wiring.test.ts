import { freePort } from '@masthead/local-infra';
import { expectWiredToItself, StackMiswiredError } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { useStack } from './support.js';

/** The test stack's own check that it reaches its own servers (tests/stack/src/wiring.ts). */
describe('test stack wiring', () => {
  const first = useStack();
  const second = useStack();

  it('passes for a stack on its own gateway', async () => {
    await expect(expectWiredToItself(first.stack)).resolves.toBeUndefined();
    await expect(expectWiredToItself(second.stack)).resolves.toBeUndefined();
  });

  it("refuses another stack's gateway, which does not know this stack's resources", async () => {
    const crossed = { operator: first.stack.operator, baseUrl: second.stack.baseUrl };
    const refusal = await expectWiredToItself(crossed).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(StackMiswiredError);
    expect(String(refusal)).toContain('404');
    expect(String(refusal)).toContain('resource_not_exists');
  });

  it('refuses a port where nothing answers', async () => {
    const port = await freePort();
    const refusal = await expectWiredToItself({ operator: first.stack.operator, baseUrl: `http://127.0.0.1:${port}/api/v1` }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(StackMiswiredError);
    expect(String(refusal)).toContain('does not know the stack');
  });
});
