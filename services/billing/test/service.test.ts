import { BillingServiceService } from '@masthead/proto/billing';
import { expectServiceLifecycle, startServiceHarness } from '@masthead/service-testkit';
import { describe, it } from 'vitest';
import { loadBillingConfig, startBillingService } from '../src/app.js';

describe('billing service process', () => {
  it('serves health over its own database and event publisher, and stops cleanly', async () => {
    const harness = await startServiceHarness({
      service: 'billing',
      definition: BillingServiceService,
      start: (env) => startBillingService(loadBillingConfig(env)),
    });
    await expectServiceLifecycle(harness);
  });
});
