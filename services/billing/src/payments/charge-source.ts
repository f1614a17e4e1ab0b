import type { Holder, OwnCustomers } from '../customers/own-customers.js';
import type { PaymentCustomerRepository } from '../customers/payment-customer.repository.js';
import type { ProviderMode } from '../connections/connection.schema.js';
import type { PaymentCustomerRecord } from '../customers/payment-customer.schema.js';
import type { SourceRepository, SourceType } from '../sources/source.repository.js';
import { CARDPROVIDER } from '../support/resource-settings.js';

/** The saved source a payment charges: local IDs for the transaction, provider IDs for the charge. */
export interface ChargeSource {
  paymentMethodId: number | null;
  userCardId: number | null;
  customerId: string;
  /** The provider ID of the source: `pm_…` or `card_…`. */
  sourceRef: string;
  card: { brand: string; last4: string } | null;
}

/** Why no source fits (checkout answers 409 invalid_payment_source with it; renewals record it). */
export class NoChargeSource extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'NoChargeSource';
  }
}

/**
 * The member's saved card-provider sources as payments see them: a named one (checkout's
 * `payment_method_id` / `user_card_id`) or the member's default (checkout without one,
 * renewals), visible in the resource and of the resource's mode (docs/adr/0142, 0145), on a
 * customer that is the payer's own (docs/adr/0230: a record saved before ownership was checked
 * never charges anyone else). A provider failure while checking that throws CardProviderFailure.
 */
export class ChargeSources {
  constructor(private readonly deps: { customers: PaymentCustomerRepository; sources: SourceRepository; owners: OwnCustomers }) {}

  async resolve(resourceId: number, payer: Holder, mode: ProviderMode, named?: { type: SourceType; id: number }): Promise<ChargeSource> {
    const source = await this.find(resourceId, payer.userId, mode, named);
    if (!(await this.deps.owners.holds(source.customer, payer)))
      throw new NoChargeSource('the payment source is not on a customer of the member');
    return source.charge;
  }

  private async find(
    resourceId: number,
    userId: number,
    mode: ProviderMode,
    named?: { type: SourceType; id: number },
  ): Promise<{ charge: ChargeSource; customer: PaymentCustomerRecord }> {
    const customers = await this.deps.customers.listVisible(resourceId, userId, CARDPROVIDER);
    const customerIds = customers.map((customer) => customer._id);
    let ref = named;
    if (!ref) {
      const pointer = await this.deps.sources.findDefault(userId, CARDPROVIDER);
      if (!pointer) throw new NoChargeSource('no saved payment source: save a card first');
      ref = { type: pointer.source_type, id: pointer.source_id };
    }
    if (ref.type === 'payment-method') {
      const method = await this.deps.sources.findMethod(userId, customerIds, ref.id);
      const customer = method && customers.find((candidate) => candidate._id === method.payment_customer_id);
      if (!method || !customer || method.mode !== mode)
        throw new NoChargeSource('payment_method_id is not a saved method of the member here');
      const charge = {
        paymentMethodId: method._id,
        userCardId: method.card_id,
        customerId: method.customer_id,
        sourceRef: method.payment_method_id,
        card: method.data ? { brand: method.data.card_brand, last4: method.data.card_last4 } : null,
      };
      return { charge, customer };
    }
    const card = await this.deps.sources.findCard(userId, customerIds, ref.id);
    const customer = card && customers.find((candidate) => candidate._id === card.payment_customer_id);
    if (!card || !customer || customer.mode !== mode) throw new NoChargeSource('user_card_id is not a saved card of the member here');
    const charge = {
      paymentMethodId: null,
      userCardId: card._id,
      customerId: card.customer_id,
      sourceRef: card.card_id,
      card: { brand: card.details.card_brand, last4: card.details.card_last4 },
    };
    return { charge, customer };
  }
}
