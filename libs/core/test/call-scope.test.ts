import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createServiceClient,
  runInCall,
  startGrpcServer,
  type CallContext,
  type RunningGrpcServer,
  type ServiceClient,
  type ServiceRegistration,
} from '../src/grpc/index.js';
import { createLogger } from '../src/logging/index.js';

/** A one-method JSON service; the real services use ts-proto definitions of the same shape. */
function jsonService<Req, Res, M extends string>(service: string, method: M) {
  const json = (value: unknown) => Buffer.from(JSON.stringify(value ?? {}));
  const parse = (bytes: Buffer) => JSON.parse(bytes.toString('utf8') || '{}') as never;
  const definition = {
    method: {
      path: `/${service}/${method}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: json as (value: Req) => Buffer,
      requestDeserialize: parse as (bytes: Buffer) => Req,
      responseSerialize: json as (value: Res) => Buffer,
      responseDeserialize: parse as (bytes: Buffer) => Res,
    },
  };
  return { [method]: definition.method } as Record<M, typeof definition.method>;
}

const SLEEPER = jsonService<{ ms: number }, { slept: boolean }, 'sleep'>('test.Sleeper', 'sleep');
const RELAY = jsonService<{ ms: number }, { relayed: boolean }, 'relay'>('test.Relay', 'relay');

/** How hop 1's own call to hop 2 ended. */
interface RelayOutcome {
  status: number;
  elapsedMs: number;
}

async function until<T>(probe: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Types the implementation against its definition, as a service's composition root does. */
const registration = <Def>(definition: Def, rest: Omit<ServiceRegistration<Def>, 'definition'>): ServiceRegistration<Def> => ({
  definition,
  ...rest,
});

/** Every client of the test gets the production default: five seconds per hop. */
const DEFAULT_DEADLINE_MS = 5000;

describe('the ambient call: request ID and deadline cross every hop', () => {
  const records: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) records.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger({ name: 'call-scope-test', level: 'info', destination: sink });
  /** What hop 2 saw of each call, by the request ID hop 1 was called with. */
  const seenAtHop2: CallContext[] = [];
  const relayOutcomes: RelayOutcome[] = [];
  let sleeper: RunningGrpcServer;
  let relay: RunningGrpcServer;
  let sleeperClient: ServiceClient<typeof SLEEPER>;
  let relayClient: ServiceClient<typeof RELAY>;

  beforeAll(async () => {
    sleeper = await startGrpcServer({
      listen: '127.0.0.1:0',
      logger,
      services: [
        registration(SLEEPER, {
          name: 'test.Sleeper',
          implementation: {
            sleep: async ({ ms }, context) => {
              seenAtHop2.push(context);
              logger.info('hop 2 sleeping');
              await new Promise((resolve) => setTimeout(resolve, ms));
              return { slept: true };
            },
          },
        }),
      ],
    });
    sleeperClient = createServiceClient(SLEEPER, `127.0.0.1:${sleeper.port}`, { defaultDeadlineMs: DEFAULT_DEADLINE_MS });
    relay = await startGrpcServer({
      listen: '127.0.0.1:0',
      logger,
      services: [
        registration(RELAY, {
          name: 'test.Relay',
          implementation: {
            // Passes nothing on: what hop 2 receives comes from the ambient call alone.
            relay: async ({ ms }) => {
              const started = Date.now();
              try {
                await sleeperClient.sleep({ ms });
                relayOutcomes.push({ status: 200, elapsedMs: Date.now() - started });
              } catch (error) {
                relayOutcomes.push({ status: (error as { status: number }).status, elapsedMs: Date.now() - started });
                throw error;
              }
              return { relayed: true };
            },
          },
        }),
      ],
    });
    relayClient = createServiceClient(RELAY, `127.0.0.1:${relay.port}`, { defaultDeadlineMs: DEFAULT_DEADLINE_MS });
  });

  afterAll(async () => {
    relayClient?.close();
    sleeperClient?.close();
    await relay?.stop(0);
    await sleeper?.stop(0);
  });

  it('hop 2 inherits what is left of the deadline and the request ID given at hop 1', async () => {
    const deadline = new Date(Date.now() + 300);
    relayOutcomes.length = 0;

    // Hop 2 sleeps for 3 s, well inside its client's own 5 s default: only the inherited
    // deadline can stop hop 1's call to it at 300 ms.
    await expect(relayClient.relay({ ms: 3000 }, { requestId: 'req-two-hops', deadline })).rejects.toMatchObject({ status: 504 });

    const outcome = await until(() => relayOutcomes[0]);
    expect(outcome.status).toBe(504);
    expect(outcome.elapsedMs).toBeLessThan(1000);
    const atHop2 = seenAtHop2.at(-1);
    expect(atHop2?.requestId).toBe('req-two-hops');
    expect(Math.abs((atHop2?.deadline?.getTime() ?? Infinity) - deadline.getTime())).toBeLessThan(50);
    expect(records).toContainEqual(expect.objectContaining({ msg: 'hop 2 sleeping', req_guid: 'req-two-hops' }));
  });

  it('without an ambient call a hop gets the default deadline and no request ID', async () => {
    await expect(relayClient.relay({ ms: 50 })).resolves.toEqual({ relayed: true });

    const atHop2 = seenAtHop2.at(-1);
    expect(atHop2?.requestId).toBe('internal');
    expect((atHop2?.deadline?.getTime() ?? 0) - Date.now()).toBeGreaterThan(DEFAULT_DEADLINE_MS - 1000);
  });

  it('an explicit request ID overrides the ambient one; an explicit deadline cannot outlive it', async () => {
    const deadline = new Date(Date.now() + 2000);
    await runInCall({ requestId: 'ambient', deadline }, () =>
      sleeperClient.sleep({ ms: 0 }, { requestId: 'explicit', deadline: new Date(Date.now() + 60_000) }),
    );

    const atHop2 = seenAtHop2.at(-1);
    expect(atHop2?.requestId).toBe('explicit');
    expect(Math.abs((atHop2?.deadline?.getTime() ?? Infinity) - deadline.getTime())).toBeLessThan(50);
  });
});
