import { join } from 'node:path';
import { startLocalStripe, startStripeMock, type StartedServer } from '@masthead/local-infra';

/** The run's card-provider fakes (docs/adr/0110); an address is '' when its server failed to start. */
export interface CardProviderServers {
  /** localstripe, stateful: where billing's stacks send provider calls (CARDPROVIDER_API_BASE). */
  localStripeUrl: string;
  /** stripe-mock, stateless: validates requests against the provider's OpenAPI document. */
  stripeMockUrl: string;
  /** Stops both by PID; never throws. */
  stop(): Promise<void>;
}

/**
 * Starts localstripe and stripe-mock on free loopback ports, logs in `dataDir`. Never rejects: a
 * server that cannot start (e.g. bootstrap could not install it) only fails the tests that use it,
 * which say why.
 */
export async function startCardProviders(dataDir: string): Promise<CardProviderServers> {
  const [localStripe, stripeMock] = await Promise.all([
    started('localstripe', () => startLocalStripe({ dataDir: join(dataDir, 'localstripe'), logFile: join(dataDir, 'localstripe.log') })),
    started('stripe-mock', () => startStripeMock({ dataDir: join(dataDir, 'stripe-mock'), logFile: join(dataDir, 'stripe-mock.log') })),
  ]);
  return {
    localStripeUrl: localStripe?.url ?? '',
    stripeMockUrl: stripeMock?.url ?? '',
    async stop() {
      await Promise.all([localStripe?.process.stop(), stripeMock?.process.stop()]);
    },
  };
}

async function started(name: string, start: () => Promise<StartedServer>): Promise<StartedServer | undefined> {
  try {
    return await start();
  } catch (error) {
    console.warn(`${name} not started: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
