import type { Handler } from '../routes/define.js';

/** GET /resource: the member-facing configuration (document 1, section E). */
export const getResource: Handler<'memberAnySession'> = async (context, _input, { accounts }) => {
  const resource = context.resource;
  const config = await accounts.getResourceConfig({ id: resource.id }, { requestId: context.requestId, idempotent: true });
  const body: Record<string, unknown> = {
    public_key: config.publicKey,
    origin: config.origin ?? null,
    payments_in_live_mode: config.paymentsInLiveMode,
    web_app_config: config.webAppConfig ?? null,
    default_payment_system: config.defaultPaymentSystem,
  };
  if (config.defaultPaymentSystem === 'cardprovider') body['cardprovider_public_key'] = config.cardproviderPublicKey ?? null;
  if (config.appId !== undefined) body['app_id'] = config.appId;
  if (config.locationId !== undefined) body['location_id'] = config.locationId;
  return { body };
};
