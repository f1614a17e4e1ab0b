import { IntegrationsServiceService } from '@masthead/proto/integrations';
import { expectServiceLifecycle, startServiceHarness } from '@masthead/service-testkit';
import { describe, it } from 'vitest';
import { loadIntegrationsConfig, startIntegrationsService } from '../src/app.js';

describe('integrations service process', () => {
  it('serves health over its own database and event publisher, and stops cleanly', async () => {
    const harness = await startServiceHarness({
      service: 'integrations',
      definition: IntegrationsServiceService,
      start: (env) => startIntegrationsService(loadIntegrationsConfig(env)),
    });
    await expectServiceLifecycle(harness);
  });
});
