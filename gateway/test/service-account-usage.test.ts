import { createLogger } from '@masthead/core/logging';
import type { RecordServiceAccountUsageRequest } from '@masthead/proto/accounts/service_accounts';
import { describe, expect, it } from 'vitest';
import { ServiceAccountUsage } from '../src/auth/service-account-usage.js';
import type { ServiceClients } from '../src/clients.js';

const logger = createLogger({ name: 'test', level: 'silent' });

/** A fake accounts client that records reports and fails while `failing` is set. */
function fakeAccounts() {
  const reports: RecordServiceAccountUsageRequest[] = [];
  const state = { failing: false };
  const client = {
    recordServiceAccountUsage: async (request: RecordServiceAccountUsageRequest) => {
      if (state.failing) throw new Error('unavailable');
      reports.push(request);
      return {};
    },
  } as unknown as ServiceClients['serviceAccounts'];
  return { client, reports, state };
}

describe('ServiceAccountUsage', () => {
  it('reports many requests of an account as one entry, in one call', async () => {
    const { client, reports } = fakeAccounts();
    const usage = new ServiceAccountUsage(client, 60_000, logger);
    usage.record(1);
    usage.record(2);
    usage.record(1);
    await usage.flush();
    expect(reports).toHaveLength(1);
    expect(reports[0]!.usages.map(({ serviceAccountId, requests }) => ({ serviceAccountId, requests }))).toEqual([
      { serviceAccountId: 1, requests: 2 },
      { serviceAccountId: 2, requests: 1 },
    ]);
    expect(Date.parse(reports[0]!.usages[0]!.lastUsedAt)).toBeLessThanOrEqual(Date.now());
    // Nothing pending: no call.
    await usage.flush();
    expect(reports).toHaveLength(1);
    await usage.stop();
  });

  it('keeps the counts of a failed report for the next one', async () => {
    const { client, reports, state } = fakeAccounts();
    const usage = new ServiceAccountUsage(client, 60_000, logger);
    state.failing = true;
    usage.record(5);
    usage.record(5);
    await usage.flush();
    expect(reports).toHaveLength(0);
    state.failing = false;
    usage.record(5);
    await usage.stop();
    expect(reports.map((report) => report.usages.map(({ serviceAccountId, requests }) => ({ serviceAccountId, requests })))).toEqual([
      [{ serviceAccountId: 5, requests: 3 }],
    ]);
  });
});
