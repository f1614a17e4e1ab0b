import type { ConnectionSummary } from '@masthead/proto/billing/connection';
import type { CardItem, LegacyCustomer } from '@masthead/proto/billing/legacy_sources';
import type { PaymentCustomer, PaymentSource, SavedMethod } from '@masthead/proto/billing/payment_sources';
import type { ConnectGuidance as ConnectGuidanceMessage, ConnectedAccount } from '@masthead/proto/billing/connect';
import type { ConnectGuidance } from '../connections/connect.service.js';
import type { ConnectedAccountRecord, ConnectionRecord } from '../connections/connection.schema.js';
import type { PaymentCustomerRecord } from '../customers/payment-customer.schema.js';
import type { SourceView } from '../sources/source-list.js';
import type { PaymentMethodRecord, UserCardRecord } from '../sources/source.schema.js';

/** Storage rows → billing messages. The gateway shapes the JSON from these. */

export const toPaymentCustomer = (customer: PaymentCustomerRecord): PaymentCustomer => ({
  id: customer._id,
  userId: customer.user_id,
  paySystem: customer.pay_system,
  customerId: customer.customer_id,
  mode: customer.mode,
  createdAt: customer.created_at.toISOString(),
});

export const toSavedMethod = (method: PaymentMethodRecord): SavedMethod => ({
  id: method._id,
  paymentMethodId: method.payment_method_id,
  customerId: method.customer_id,
  paymentCustomerId: method.payment_customer_id,
  cardId: method.card_id ?? 0,
});

export const toPaymentSource = (view: SourceView): PaymentSource => ({
  sourceType: view.sourceType,
  default: view.isDefault,
  paySystem: view.paySystem,
  customerId: view.customerId,
  userCard: view.card
    ? {
        id: view.card._id,
        cardId: view.card.card_id,
        cardLast4: view.card.details.card_last4,
        cardBrand: view.card.details.card_brand,
        expirationDate: view.card.details.expiration_date,
        default: view.sourceType === 'user-card' && view.isDefault,
      }
    : undefined,
  paymentMethod: view.method
    ? {
        id: view.method._id,
        paymentMethodId: view.method.payment_method_id,
        mode: view.method.mode,
        type: view.method.type,
        data: view.method.data
          ? {
              cardBrand: view.method.data.card_brand,
              cardCountry: view.method.data.card_country,
              cardLast4: view.method.data.card_last4,
              expirationDate: view.method.data.expiration_date,
            }
          : undefined,
      }
    : undefined,
});

/** Never the secret: what is stored and under which encryption key. */
export const toConnectionSummary = (resourceId: number, mode: string, record: ConnectionRecord | null): ConnectionSummary => ({
  resourceId,
  mode,
  hasSecretKey: record !== null,
  secretKeyLast4: record?.secret_key_last4 ?? '',
  keyId: record?.secret_key.key_id ?? '',
  updatedAt: record?.updated_at.toISOString() ?? '',
  clientId: record?.client_id ?? '',
  connectedAccountId: record?.connected_account?.account_id ?? '',
});

/** Document 1, "Legacy customer record": no `payment_methods` key. */
export const toLegacyCustomer = (customer: PaymentCustomerRecord, cards: UserCardRecord[]): LegacyCustomer => ({
  id: customer._id,
  paySystem: customer.pay_system,
  customerId: customer.customer_id,
  cards: cards.map((card) => ({ id: card._id, cardLast4: card.details.card_last4 })),
});

/** Confirm's "raw model" (document 1 D): the saved record's fields, no nested user_card. */
export const toRawMethod = (method: PaymentMethodRecord) => ({
  id: method._id,
  user_id: method.user_id,
  payment_customer_id: method.payment_customer_id,
  customer_id: method.customer_id,
  payment_method_id: method.payment_method_id,
  pay_system: method.pay_system,
  mode: method.mode,
  type: method.type,
  data: method.data,
  card_id: method.card_id,
  created_at: method.created_at.toISOString(),
});

export const toCardItem = (card: UserCardRecord & { isDefault: boolean }): CardItem => ({
  id: card._id,
  cardId: card.card_id,
  cardBrand: card.details.card_brand,
  cardCountry: card.details.card_country,
  cardLast4: card.details.card_last4,
  expirationDate: card.details.expiration_date,
  customerId: card.customer_id,
  paySystem: card.pay_system,
  default: card.isDefault,
});

/** A connected account without its tokens (docs/adr/0126). */
export const toConnectedAccount = (account: ConnectedAccountRecord): ConnectedAccount => ({
  accountId: account.account_id,
  livemode: account.livemode,
  scope: account.scope,
  publishableKey: account.publishable_key,
  connectedAt: account.connected_at.toISOString(),
  connectedBy: account.connected_by,
});

/** The guidance: the state is the one plain value shown, once, to the admin who asked. */
export const toConnectGuidance = (guidance: ConnectGuidance): ConnectGuidanceMessage => ({
  mode: guidance.mode,
  clientId: guidance.clientId,
  authorizeUrl: guidance.authorizeUrl,
  state: guidance.state,
  stateExpiresAt: guidance.stateExpiresAt.toISOString(),
  connectedAccount: guidance.connectedAccount ? toConnectedAccount(guidance.connectedAccount) : undefined,
});
