import type { ConnectedAccount, ConnectGuidance } from '@masthead/proto/billing/connect';
import type { PaymentCustomer, PaymentSource, SavedMethod } from '@masthead/proto/billing/payment_sources';

/** Billing messages → document 1 D's JSON. */

export const serializePaymentCustomer = (customer: PaymentCustomer) => ({
  id: customer.id,
  user_id: customer.userId,
  pay_system: customer.paySystem,
  customer_id: customer.customerId,
  mode: customer.mode,
  created_at: customer.createdAt,
});

/** "Saved method record": card_id is null for a method that is not a card. */
export const serializeSavedMethod = (method: SavedMethod) => ({
  id: method.id,
  payment_method_id: method.paymentMethodId,
  customer_id: method.customerId,
  payment_customer_id: method.paymentCustomerId,
  card_id: method.cardId || null,
});

/** "Saved payment source summary" (document 1, Resources; docs/adr/0122 for user_card). */
export const serializePaymentSource = (source: PaymentSource) => ({
  source_type: source.sourceType,
  default: source.default,
  pay_system: source.paySystem,
  customer_id: source.customerId,
  user_card: source.userCard
    ? {
        id: source.userCard.id,
        card_id: source.userCard.cardId,
        card_brand: source.userCard.cardBrand,
        card_last4: source.userCard.cardLast4,
        expiration_date: source.userCard.expirationDate,
      }
    : null,
  payment_method: source.paymentMethod
    ? {
        id: source.paymentMethod.id,
        payment_method_id: source.paymentMethod.paymentMethodId,
        mode: source.paymentMethod.mode,
        type: source.paymentMethod.type,
        data: source.paymentMethod.data
          ? {
              card_brand: source.paymentMethod.data.cardBrand,
              card_country: source.paymentMethod.data.cardCountry,
              card_last4: source.paymentMethod.data.cardLast4,
              expiration_date: source.paymentMethod.data.expirationDate,
            }
          : null,
      }
    : null,
});

/** A connected account (docs/adr/0126): `account_id` is the provider's account ID; no token. */
export const serializeConnectedAccount = (account: ConnectedAccount) => ({
  account_id: account.accountId,
  livemode: account.livemode,
  scope: account.scope,
  publishable_key: account.publishableKey,
  connected_at: account.connectedAt,
  connected_by: account.connectedBy,
});

/** GET /admin/integrations/cardprovider/connect's `cardprovider_connect` (docs/adr/0126). */
export const serializeConnectGuidance = (guidance: ConnectGuidance) => ({
  pay_system: 'cardprovider',
  mode: guidance.mode,
  client_id: guidance.clientId,
  authorize_url: guidance.authorizeUrl,
  state: guidance.state,
  state_expires_at: guidance.stateExpiresAt,
  connected_account: guidance.connectedAccount ? serializeConnectedAccount(guidance.connectedAccount) : null,
});
