import { credentials, makeGenericClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { CHANNEL_OPTIONS, channelTarget } from './client.js';

const HealthClient = makeGenericClientConstructor(healthService, 'Health');

/** True when the server at `address` answers grpc.health.v1 Check with SERVING in time. */
export function checkHealth(address: string, timeoutMs = 1000): Promise<boolean> {
  const client = new HealthClient(channelTarget(address), credentials.createInsecure(), CHANNEL_OPTIONS);
  return new Promise<boolean>((resolve) => {
    const deadline = new Date(Date.now() + timeoutMs);
    const check = client['Check'] as unknown as (
      request: { service: string },
      options: { deadline: Date },
      callback: (error: ServiceError | null, response?: { status: string | number }) => void,
    ) => void;
    check.call(client, { service: '' }, { deadline }, (error, response) => {
      client.close();
      resolve(!error && (response?.status === 'SERVING' || response?.status === 1));
    });
  });
}
