import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

/** The dependency-rule messages ESLint gives a file of this content at this path of the tree. */
async function dependencyErrors(path: string, code: string): Promise<Array<{ ruleId: string | null; message: string }>> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports' || message.ruleId === 'import-x/no-restricted-paths')
    .map(({ ruleId, message }) => ({ ruleId, message }));
}

// The files need not exist: ESLint lints the text as if it were there (ADR 0101).
describe('the linter holds the dependency rules', () => {
  it('rejects a service importing another service by package name', async () => {
    const errors = await dependencyErrors(
      'services/billing/test/cross-service.ts',
      "import { startIdentity } from '@masthead/identity';\nexport const start = startIdentity;\n",
    );

    expect(errors).toEqual([{ ruleId: 'no-restricted-imports', message: expect.stringContaining('over gRPC') as string }]);
  });

  it('rejects a service importing the gateway', async () => {
    const errors = await dependencyErrors('services/catalog/test/edge.ts', "export { ROUTES } from '@masthead/gateway';\n");

    expect(errors).toEqual([{ ruleId: 'no-restricted-imports', message: expect.stringContaining('over gRPC') as string }]);
  });

  it('rejects a service reaching another service by a relative path', async () => {
    const errors = await dependencyErrors('services/billing/test/relative.ts', "export * from '../../identity/dist/app.js';\n");

    expect(errors).toEqual([{ ruleId: 'import-x/no-restricted-paths', message: expect.stringContaining('over gRPC') as string }]);
  });

  it('rejects a library importing a service, the gateway or the whole-stack kit', async () => {
    const errors = await dependencyErrors(
      'libs/core/test/upwards.ts',
      "export * from '@masthead/catalog';\nexport * from '@masthead/gateway';\nexport * from '@masthead/testkit';\n",
    );

    expect(errors.map(({ ruleId }) => ruleId)).toEqual(['no-restricted-imports', 'no-restricted-imports', 'no-restricted-imports']);
  });

  it('lets a service import the libraries and the contracts', async () => {
    const errors = await dependencyErrors(
      'services/billing/test/allowed.ts',
      "export * from '@masthead/core/errors';\nexport * from '@masthead/proto/billing';\nexport * from '@masthead/service-testkit';\n",
    );

    expect(errors).toEqual([]);
  });
});
