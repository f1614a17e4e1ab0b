import type { AsyncImplementation } from '@masthead/core/grpc';
import type { CardProviderConnectionServiceService } from '@masthead/proto/billing/connection';
import type { ConnectionService } from '../connections/connection.service.js';
import { toConnectionSummary } from './billing.wire.js';

export function connectionHandlers(connections: ConnectionService): AsyncImplementation<typeof CardProviderConnectionServiceService> {
  return {
    setSecretKey: async ({ resourceId, mode, secretKey }) =>
      toConnectionSummary(resourceId, mode, await connections.setSecretKey(resourceId, mode, secretKey)),
    setClientId: async ({ resourceId, mode, clientId }) =>
      toConnectionSummary(resourceId, mode, await connections.setClientId(resourceId, mode, clientId)),
    getConnection: async ({ resourceId, mode }) => toConnectionSummary(resourceId, mode, await connections.summary(resourceId, mode)),
  };
}
