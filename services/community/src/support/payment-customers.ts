/**
 * Billing's answer to "does this member have a payment customer in this resource" (document 2 C:
 * a paid Pricing needs a payment customer on an active owner's account). Billing's RPC is being
 * built (branch billing1); until it lands `NoPaymentCustomers` answers "no customer", so team
 * invitations of paid Pricings are refused with invalid_subscription_id (docs/adr/0133).
 */
export interface PaymentCustomers {
  hasCustomer(resourceId: number, userId: number): Promise<boolean>;
}

export class NoPaymentCustomers implements PaymentCustomers {
  hasCustomer(): Promise<boolean> {
    return Promise.resolve(false);
  }
}
