import type { PaymentCustomerRecord } from '../customers/payment-customer.schema.js';
import type { DefaultSourceRecord, PaymentMethodRecord, UserCardRecord } from './source.schema.js';

/** One item of GET /user/payment-sources, before its wire shape. */
export interface SourceView {
  sourceType: 'payment-method' | 'user-card';
  isDefault: boolean;
  paySystem: string;
  customerId: string;
  card: UserCardRecord | null;
  method: PaymentMethodRecord | null;
}

const newestFirst = (a: { _id: number }, b: { _id: number }) => b._id - a._id;

/**
 * Document 1 D's order: payment methods first, then cards lacking a linked method; within each
 * group the saved default first, then descending local ID. The default pointer names at most one
 * source (docs/adr/0122); a default card that a method represents shows once, as that method.
 */
export function orderSources(
  customers: PaymentCustomerRecord[],
  methods: PaymentMethodRecord[],
  cards: UserCardRecord[],
  pointer: DefaultSourceRecord | null,
): SourceView[] {
  const customerOf = new Map(customers.map((customer) => [customer._id, customer]));
  const cardById = new Map(cards.map((card) => [card._id, card]));
  const linkedCards = new Set(methods.map((method) => method.card_id).filter((id): id is number => id !== null));
  const defaultMethodId =
    pointer?.source_type === 'payment-method'
      ? pointer.source_id
      : pointer?.source_type === 'user-card'
        ? methods.find((method) => method.card_id === pointer.source_id)?._id
        : undefined;
  const isDefaultCard = (card: UserCardRecord) => pointer?.source_type === 'user-card' && pointer.source_id === card._id;
  const first =
    <T extends { _id: number }>(isDefault: (row: T) => boolean) =>
    (a: T, b: T) =>
      Number(isDefault(b)) - Number(isDefault(a)) || newestFirst(a, b);

  const methodViews = [...methods].sort(first((method) => method._id === defaultMethodId)).map<SourceView>((method) => ({
    sourceType: 'payment-method',
    isDefault: method._id === defaultMethodId,
    paySystem: method.pay_system,
    customerId: customerOf.get(method.payment_customer_id)?.customer_id ?? method.customer_id,
    card: method.card_id !== null ? (cardById.get(method.card_id) ?? null) : null,
    method,
  }));
  const cardViews = cards
    .filter((card) => !linkedCards.has(card._id))
    .sort(first(isDefaultCard))
    .map<SourceView>((card) => ({
      sourceType: 'user-card',
      isDefault: isDefaultCard(card),
      paySystem: card.pay_system,
      customerId: customerOf.get(card.payment_customer_id)?.customer_id ?? card.customer_id,
      card,
      method: null,
    }));
  return [...methodViews, ...cardViews];
}
