import type { ClientOf } from '@masthead/core/clients';

/**
 * Billing's answer to "does this member have a payment customer in this resource" (document 2 C:
 * a paid Pricing needs a payment customer on an active owner's account; docs/adr/0133). An
 * outage is not a verdict: the error travels to the caller as the service being unavailable.
 */
export interface PaymentCustomers {
  hasCustomer(resourceId: number, userId: number): Promise<boolean>;
}

export class BillingPaymentCustomers implements PaymentCustomers {
  constructor(private readonly paymentSources: ClientOf<'paymentSources'>) {}

  async hasCustomer(resourceId: number, userId: number): Promise<boolean> {
    const { hasCustomer } = await this.paymentSources.hasPaymentCustomer({ resourceId, userId }, { idempotent: true });
    return hasCustomer;
  }
}
