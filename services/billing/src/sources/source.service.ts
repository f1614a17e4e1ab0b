import { invalidCardCustomerId, invalidPaymentMethod, paymentSourceNotFound } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { ProviderAccess } from '../card-provider/provider-access.js';
import { providerFailureAs } from '../customers/customer.service.js';
import type { PaymentCustomerRepository } from '../customers/payment-customer.repository.js';
import type { PaymentCustomerRecord } from '../customers/payment-customer.schema.js';
import type { OwnCustomers } from '../customers/own-customers.js';
import type { Member } from '../support/member-scope.js';
import { CARDPROVIDER } from '../support/resource-settings.js';
import { cardDetailsOf } from './card-details.js';
import { orderSources, type SourceView } from './source-list.js';
import { invalidPaySystem, removeSourceError, saveIntentError, setupIntentError, userSourcesError } from './source.errors.js';
import type { SourceRepository, SourceType } from './source.repository.js';
import type { PaymentMethodRecord } from './source.schema.js';
import { isServiceError } from '@masthead/core/errors';

interface Deps {
  customers: PaymentCustomerRepository;
  owners: OwnCustomers;
  sources: SourceRepository;
  providers: ProviderAccess;
  events: EventPublisher;
  logger: Logger;
}

/**
 * `pay-system` as the original's validator judged it (document 1 D): it casts the value to an
 * integer before a loose comparison with the labels, so a label passes and a number does not.
 * Kept quirk (docs/adr/0122): any non-numeric label up to 64 characters is accepted and selects
 * that provider's sources (none for an unknown one).
 */
const acceptablePaySystem = (label: string) => !/^[+-]?\d/.test(label) && label.length <= 64;

/** Saved payment sources: setup and save of provider methods, the list and its single default. */
export class SourceService {
  constructor(private readonly deps: Deps) {}

  /**
   * POST …/setup-intents: a provider setup intent for one of the member's own customers in the
   * resource and its mode (docs/adr/0230); saves nothing. The idempotency key names the customer
   * and the member's request, so a retried request gets the same intent on the provider (docs/adr/0121).
   */
  async createSetupIntent(member: Member, cardCustomerId: string, requestId: string): Promise<Record<string, unknown>> {
    const customerId = cardCustomerId.trim();
    if (!customerId) throw invalidCardCustomerId();
    try {
      if (!(await this.deps.owners.find(member, customerId))) throw setupIntentError('customer not found for this member and resource');
      const provider = await this.deps.providers.for(member.resourceId, member.settings.mode);
      const key = `masthead:${member.resourceId}:${member.userId}:setup-intent:${customerId}:${requestId}:v1`;
      const intent = await provider.createSetupIntent(customerId, key);
      if (typeof intent['id'] !== 'string' || intent['id'] === '') throw setupIntentError('the provider sent no intent ID');
      return intent;
    } catch (error) {
      if (isServiceError(error)) throw error;
      providerFailureAs(error, setupIntentError);
    }
  }

  /**
   * POST …/save-intents: saves the provider method for the member and makes it, and its card, the
   * default. The provider must say the method is attached to one of the member's own customers
   * (docs/adr/0230); a method of another customer, of none, or unknown is refused alike, before
   * anything is written. A retried save reuses the same records (unique keys); the default is one
   * pointer per member and provider (docs/adr/0122).
   */
  async saveIntent(member: Member, paymentMethodId: string): Promise<PaymentMethodRecord> {
    const methodId = paymentMethodId.trim();
    if (!methodId) throw invalidPaymentMethod();
    const { mode } = member.settings;
    let providerMethod;
    let customer;
    try {
      const provider = await this.deps.providers.for(member.resourceId, mode);
      providerMethod = await provider.retrieveMethod(methodId);
      customer = providerMethod?.customer ? await this.deps.owners.adopt(member, provider, providerMethod.customer) : null;
    } catch (error) {
      providerFailureAs(error, saveIntentError);
    }
    if (!providerMethod || !customer) throw saveIntentError('the payment method is not attached to a customer of this member');
    const card = providerMethod.card
      ? await this.deps.sources.insertCardOnce({
          user_id: member.userId,
          payment_customer_id: customer._id,
          customer_id: customer.customer_id,
          pay_system: CARDPROVIDER,
          card_id: providerMethod.id,
          details: cardDetailsOf(providerMethod.card),
          card_key: `${member.userId}:${providerMethod.id}`,
        })
      : null;
    const saved = await this.deps.sources.insertMethodOnce({
      user_id: member.userId,
      payment_customer_id: customer._id,
      customer_id: customer.customer_id,
      pay_system: CARDPROVIDER,
      payment_method_id: providerMethod.id,
      mode,
      type: providerMethod.type,
      data: providerMethod.card ? cardDetailsOf(providerMethod.card) : null,
      card_id: card?._id ?? null,
      method_key: `${member.userId}:${providerMethod.id}`,
    });
    // Document 1 D: the resets follow the resource default while new records are `cardprovider`.
    if (member.settings.defaultPaySystem !== CARDPROVIDER)
      await this.deps.sources.clearDefault(member.userId, member.settings.defaultPaySystem);
    await this.deps.sources.setDefault(member.userId, CARDPROVIDER, 'payment-method', saved._id);
    await this.publishAdded(member, saved);
    return saved;
  }

  /** GET /user/payment-sources (document 1 D); 409 invalid_pay_system, 409 user_sources_error. */
  async list(member: Member, paySystemQuery: string): Promise<SourceView[]> {
    const label = paySystemQuery.trim();
    if (label && !acceptablePaySystem(label)) throw invalidPaySystem();
    const paySystem = label || member.settings.defaultPaySystem;
    try {
      return await this.sourcesOf(member, paySystem);
    } catch (error) {
      this.deps.logger.error({ err: error }, 'payment sources could not be read');
      throw userSourcesError();
    }
  }

  /** PUT /user/payment-sources/{source_type}/{id}/default: 404 payment_source_not_found. */
  async selectDefault(member: Member, sourceType: SourceType, id: number): Promise<SourceView> {
    const customers = await this.deps.customers.listVisible(member.resourceId, member.userId);
    const record = await this.findSource(member, customers, sourceType, id);
    await this.deps.sources.setDefault(member.userId, record.pay_system, sourceType, id);
    const views = await this.sourcesOf(member, record.pay_system);
    const view = views.find((item) => (sourceType === 'payment-method' ? item.method?._id : item.card?._id) === id);
    if (!view) throw paymentSourceNotFound();
    return view;
  }

  /**
   * DELETE /user/payment-sources/{source_type}/{id}: a method is detached on the provider first,
   * then its records are deleted; a card is a local record only (docs/adr/0122). The provider
   * detaches only a method it says is attached to the record's customer, and only when that
   * customer is the member's own (docs/adr/0230): a record naming anyone else's method loses its
   * local records and leaves the provider alone; an already detached method counts as done.
   * 404 payment_source_not_found.
   */
  async remove(member: Member, sourceType: SourceType, id: number): Promise<void> {
    const customers = await this.deps.customers.listVisible(member.resourceId, member.userId);
    const record = await this.findSource(member, customers, sourceType, id);
    const { sources } = this.deps;
    if (sourceType === 'user-card') {
      await sources.deleteCard(id);
      await sources.clearDefaultIf(member.userId, record.pay_system, 'user-card', id);
      return;
    }
    const method = record as PaymentMethodRecord;
    const customer = customers.find((candidate) => candidate._id === method.payment_customer_id);
    try {
      if (customer && (await this.deps.owners.holds(customer, member))) {
        const provider = await this.deps.providers.for(member.resourceId, method.mode);
        await provider.detachMethod(
          method.payment_method_id,
          method.customer_id,
          `masthead:${member.resourceId}:${member.userId}:detach:${method.payment_method_id}:v1`,
        );
      }
    } catch (error) {
      providerFailureAs(error, removeSourceError);
    }
    await sources.deleteMethod(id);
    await sources.clearDefaultIf(member.userId, method.pay_system, 'payment-method', id);
    if (method.card_id !== null) {
      await sources.deleteCard(method.card_id);
      await sources.clearDefaultIf(member.userId, method.pay_system, 'user-card', method.card_id);
    }
  }

  private async sourcesOf(member: Member, paySystem: string): Promise<SourceView[]> {
    const customers = await this.deps.customers.listVisible(member.resourceId, member.userId, paySystem);
    const ids = customers.map((customer) => customer._id);
    const [methods, cards, pointer] = await Promise.all([
      this.deps.sources.listMethods(member.userId, ids),
      this.deps.sources.listCards(member.userId, ids),
      this.deps.sources.findDefault(member.userId, paySystem),
    ]);
    return orderSources(customers, methods, cards, pointer);
  }

  private async findSource(member: Member, customers: PaymentCustomerRecord[], sourceType: SourceType, id: number) {
    const ids = customers.map((customer) => customer._id);
    const record =
      sourceType === 'payment-method'
        ? await this.deps.sources.findMethod(member.userId, ids, id)
        : await this.deps.sources.findCard(member.userId, ids, id);
    if (!record) throw paymentSourceNotFound();
    return record;
  }

  /** Event `user_add_payment_method` (document 1, Events); a failed publish is logged, not fatal. */
  private async publishAdded(member: Member, method: PaymentMethodRecord): Promise<void> {
    try {
      await this.deps.events.publish({
        name: 'user_add_payment_method',
        resourceId: member.resourceId,
        payload: {
          user_id: member.userId,
          payment_method_id: method._id,
          provider_payment_method_id: method.payment_method_id,
          customer_id: method.customer_id,
          pay_system: method.pay_system,
          mode: method.mode,
        },
      });
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'user_add_payment_method not published');
    }
  }
}
