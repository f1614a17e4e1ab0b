import { invalidConnectCode, invalidConnectState } from '@masthead/core/errors';
import type { z } from 'zod';
import { fromFields, raise, text } from '../http/request.js';
import type { Handler } from '../routes/define.js';
import { serializeConnectedAccount, serializeConnectGuidance } from '../serializers/billing.js';
import { scopeOf } from './payment-sources.js';

/**
 * Integration-admin operations on the resource's card-provider connection (document 1 D,
 * OPERATIONS.md 104–106; docs/adr/0126). The admin's own session in `token` plus `resource`
 * (Authentication rule 5): nothing here mints credentials.
 */

/** GET …/connect: `{cardprovider_connect: guidance}`, a fresh single-use state each time. */
export const getConnectGuidance: Handler<'admin'> = async (context, _input, { cardProviderConnect }) => {
  const guidance = await cardProviderConnect.getConnectGuidance(scopeOf(context));
  return { body: { cardprovider_connect: serializeConnectGuidance(guidance) } };
};

/**
 * POST …/connect: `code` and `state` as the provider's redirect carried them, JSON or form (form
 * wins, document 1 conventions). The checks run in the order state, code.
 */
export const exchangeConnectCodeRequest = fromFields({
  state: text.transform((value, ctx) => value.trim() || raise(ctx, invalidConnectState)),
  code: text.transform((value, ctx) => value.trim() || raise(ctx, invalidConnectCode)),
});

/** POST …/connect: `{connected_account}`, the account now recorded for the resource's mode. */
export const exchangeConnectCode: Handler<'admin', z.output<typeof exchangeConnectCodeRequest>> = async (
  context,
  { code, state },
  { cardProviderConnect },
) => {
  const account = await cardProviderConnect.exchangeConnectCode({ scope: scopeOf(context), code, state });
  return { body: { connected_account: serializeConnectedAccount(account) } };
};

/** DELETE …/connect: `{result: true, deauthorized, account_id}` (account_id null when none was connected). */
export const clearConnect: Handler<'admin'> = async (context, _input, { cardProviderConnect }) => {
  const cleared = await cardProviderConnect.clearConnect(scopeOf(context));
  return { body: { result: true, deauthorized: cleared.deauthorized, account_id: cleared.accountId || null } };
};
