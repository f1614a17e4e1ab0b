import { describe, expect, it } from 'vitest';

import { loadConfig } from '../src/config.js';
import { planTopology } from '../src/topology.js';

describe('dev stack topology', () => {
  const config = loadConfig({}, '/repo');
  const infra = { mongoUrl: 'mongodb://127.0.0.1:1/', natsUrl: 'nats://127.0.0.1:2' };

  it("gives billing, and only billing, the local card provider's address", async () => {
    const topology = await planTopology(config, { ...infra, cardProviderUrl: 'http://127.0.0.1:3' }, {});
    const apiBaseOf = Object.fromEntries(topology.services.map((spec) => [spec.name, spec.env.CARDPROVIDER_API_BASE]));
    expect(apiBaseOf).toEqual({
      accounts: undefined,
      identity: undefined,
      catalog: undefined,
      billing: 'http://127.0.0.1:3',
      community: undefined,
      integrations: undefined,
    });
    expect(topology.gateway.env.CARDPROVIDER_API_BASE).toBeUndefined();
  });

  it('leaves it unset when the card provider did not start', async () => {
    const topology = await planTopology(config, infra, {});
    expect(topology.services.find((spec) => spec.name === 'billing')?.env.CARDPROVIDER_API_BASE).toBeUndefined();
  });
});
