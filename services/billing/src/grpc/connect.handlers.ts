import type { AsyncImplementation } from '@masthead/core/grpc';
import type { CardProviderConnectServiceService } from '@masthead/proto/billing/connect';
import type { ConnectService } from '../connections/connect.service.js';
import { memberOf } from '../support/member-scope.js';
import { toConnectedAccount, toConnectGuidance } from './billing.wire.js';

/** The integration-admin connect operations (docs/adr/0126); the gateway checked the admin. */
export function connectHandlers(connect: ConnectService): AsyncImplementation<typeof CardProviderConnectServiceService> {
  return {
    getConnectGuidance: async (scope) => toConnectGuidance(await connect.guidance(memberOf(scope))),
    exchangeConnectCode: async ({ scope, code, state }) => toConnectedAccount(await connect.exchange(memberOf(scope), code, state)),
    clearConnect: async (scope) => connect.clear(memberOf(scope)),
  };
}
