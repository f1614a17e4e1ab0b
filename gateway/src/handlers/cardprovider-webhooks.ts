import type { Handler } from '../routes/define.js';

/**
 * POST /webhooks/cardprovider (beyond the spec; ADR 0147): the card provider's signed events.
 * The body goes to billing as the bytes that were signed; billing verifies, deduplicates and
 * applies. `{received: true}` (with `duplicate` or `ignored` when so); any non-2xx makes the
 * provider retry.
 */
export const receiveCardProviderEvent: Handler<'external'> = async (_context, _input, { cardProviderWebhooks }, req) => {
  const receipt = await cardProviderWebhooks.handleCardProviderEvent({
    payload: req.decoded.raw ?? '',
    signature: req.get('stripe-signature') ?? '',
  });
  return { body: { received: true, duplicate: receipt.duplicate, ignored: receipt.ignored } };
};
