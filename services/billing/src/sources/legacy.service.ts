import { customerNotFound, isServiceError } from '@masthead/core/errors';
import type { CardProvider, ProviderCard, ProviderMethod } from '../card-provider/card-provider.js';
import type { ProviderAccess } from '../card-provider/provider-access.js';
import { providerFailureAs } from '../customers/customer.service.js';
import type { PaymentCustomerRepository } from '../customers/payment-customer.repository.js';
import type { PaymentCustomerRecord } from '../customers/payment-customer.schema.js';
import { isHoldersCustomer, type OwnCustomers } from '../customers/own-customers.js';
import type { ProviderWriteLedger } from '../provider-writes/provider-write.ledger.js';
import type { Member } from '../support/member-scope.js';
import { CARDPROVIDER } from '../support/resource-settings.js';
import { cardDetailsOf } from './card-details.js';
import {
  cardAddError,
  confirmPaymentMethodError,
  incorrectCreatePaymentCustomer,
  incorrectCustomer,
  incorrectRetrieveCard,
  incorrectRetrieveToken,
  paymentMethodSavingErrors,
} from './legacy.errors.js';
import type { SourceRepository } from './source.repository.js';
import type { PaymentMethodRecord, UserCardRecord } from './source.schema.js';

export type LegacyVariant = 'customer' | 'token';

interface Deps {
  customers: PaymentCustomerRepository;
  owners: OwnCustomers;
  sources: SourceRepository;
  providers: ProviderAccess;
  ledger: ProviderWriteLedger;
}

/** What confirm refuses a method with that is not the member's, unknown or attached elsewhere alike (docs/adr/0230). */
const NOT_MEMBERS_METHOD = 'no such payment method of this member';

/** The error of each step, per operation (document 1 D: "distinct error sets"). */
const STEP_ERRORS = {
  customer: { token: incorrectCustomer, create: incorrectCustomer, cards: incorrectCustomer },
  token: { token: incorrectRetrieveToken, create: incorrectCreatePaymentCustomer, cards: incorrectRetrieveCard },
} as const;

/** Legacy card-provider flows (document 1 D); docs/adr/0124. */
export class LegacySourceService {
  constructor(private readonly deps: Deps) {}

  /**
   * Creates a provider customer from a provider token with the member's email and name, imports
   * its cards, and attaches it to the resource unless `auto_attach_customer_to_resource` is false.
   * A token is single-use, so it keys the write: a retry returns the same customer. A token used
   * already (its card belongs to a customer) is refused before the write (docs/adr/0230).
   */
  async createFromToken(
    member: Member,
    token: string,
    variant: LegacyVariant,
  ): Promise<{ customer: PaymentCustomerRecord; cards: UserCardRecord[] }> {
    const errors = STEP_ERRORS[variant];
    if (member.settings.defaultPaySystem !== CARDPROVIDER)
      throw errors.create('the resource default payment system is not the card provider');
    const key = `masthead:${member.resourceId}:${member.userId}:legacy-customer:${token}:v1`;
    const provider = await this.step(errors.create, () => this.deps.providers.for(member.resourceId, member.settings.mode));
    if (variant === 'token') await this.step(errors.token, () => provider.retrieveToken(token));
    const customerId = await this.step(errors.create, () =>
      this.deps.ledger.once(key, {
        find: async () => (await provider.findCustomerByKey(member.email, key))?.id ?? null,
        create: async () => {
          await this.unusedToken(provider, token, errors.token);
          return (await provider.createCustomer({ email: member.email, name: member.name, source: token }, key)).id;
        },
      }),
    );
    const providerCards = await this.step(errors.cards, () => provider.listCards(customerId));
    return this.record(member, customerId, key, providerCards);
  }

  /**
   * POST /user/cardprovider/customer/import: records a provider customer of the member's (made by
   * billing for them, or holding their email: isHoldersCustomer, docs/adr/0230) with its cards, or,
   * without `customer_id`, creates the member's card-less legacy customer for this resource. The record is keyed as save-intents
   * keys an adopted customer, and a customer already recorded here (by any flow) is answered as
   * it is; `created` tells the caller whether this call recorded it (docs/adr/0124).
   */
  async importCustomer(
    member: Member,
    providerCustomerId: string | null,
  ): Promise<{ customer: PaymentCustomerRecord; cards: UserCardRecord[]; created: boolean }> {
    if (member.settings.defaultPaySystem !== CARDPROVIDER)
      throw incorrectCustomer('the resource default payment system is not the card provider');
    const provider = await this.step(incorrectCustomer, () => this.deps.providers.for(member.resourceId, member.settings.mode));
    let customerId: string;
    let key: string;
    if (providerCustomerId) {
      const found = await this.step(incorrectCustomer, () => provider.retrieveCustomer(providerCustomerId));
      // Another person's customer is "not found": a member may not record, and later charge, it.
      if (!found || !isHoldersCustomer(found, member)) throw customerNotFound();
      customerId = found.id;
      key = `${member.userId}:${CARDPROVIDER}:${found.id}`;
    } else {
      key = `masthead:${member.resourceId}:${member.userId}:legacy-customer:import:v1`;
      customerId = await this.step(incorrectCustomer, () =>
        this.deps.ledger.once(key, {
          find: async () => (await provider.findCustomerByKey(member.email, key))?.id ?? null,
          create: async () => (await provider.createCustomer({ email: member.email, name: member.name }, key)).id,
        }),
      );
    }
    const existing =
      (await this.deps.customers.findVisibleByProviderId(member.resourceId, member.userId, CARDPROVIDER, customerId)) ??
      (await this.deps.customers.findByKey(key));
    if (existing) return { customer: existing, cards: await this.deps.sources.listCards(member.userId, [existing._id]), created: false };
    const providerCards = await this.step(incorrectCustomer, () => provider.listCards(customerId));
    return { ...(await this.record(member, customerId, key, providerCards)), created: true };
  }

  /**
   * POST /user/card: adds a card from a provider token to one of the member's own legacy customers
   * visible here (`customer_id`, a local ID, or else the newest), in that customer's provider
   * account. Keyed by the token (single-use), so a retry answers the same card; a token used
   * already is refused before the write (docs/adr/0230). Not made default.
   */
  async addCard(member: Member, token: string, customerLocalId: number | null): Promise<UserCardRecord> {
    const visible = (await this.deps.customers.listVisible(member.resourceId, member.userId, CARDPROVIDER)).sort((a, b) => b._id - a._id);
    const customer = customerLocalId ? visible.find((candidate) => candidate._id === customerLocalId) : visible[0];
    if (!customer || !(await this.step(cardAddError, () => this.deps.owners.holds(customer, member)))) throw customerNotFound();
    const provider = await this.step(cardAddError, () => this.deps.providers.for(customer.resource_id, customer.mode));
    const { cardId } = await this.step(incorrectRetrieveToken, () => provider.retrieveToken(token));
    if (!cardId) throw incorrectRetrieveToken('the token holds no card');
    const key = `masthead:${member.resourceId}:${member.userId}:card:${token}:v1`;
    const hasCard = async () => (await provider.listCards(customer.customer_id)).find((card) => card.id === cardId) ?? null;
    await this.step(cardAddError, () =>
      this.deps.ledger.once(key, {
        find: async () => (await hasCard())?.id ?? null,
        create: async () => {
          await this.unusedToken(provider, token, incorrectRetrieveToken);
          return (await provider.addCard(customer.customer_id, token, key)).id;
        },
      }),
    );
    const card = await this.step(cardAddError, hasCard);
    if (!card) throw cardAddError('the provider does not list the card it added');
    return this.insertCard(member.userId, customer._id, customer.customer_id, card);
  }

  /**
   * POST /user/cardprovider/confirm-payment-method: attaches the method to the member's customer,
   * then saves it locally (document 1 D: attachment first, not undone when the save fails). Every
   * object the request names is checked before the attachment (docs/adr/0230): the customer and
   * card must be the member's own (406 payment_method_saving_errors, the local save's answer), the
   * method attached to that customer already (a retried confirm: no second write) or to none; a
   * method attached to no customer is attached only when the request's `intent.id` names a
   * succeeded setup intent of that customer that the provider says confirmed this very method
   * (406 confirm_cardprovider_payment_method_error otherwise, as for an unknown method).
   */
  async confirm(
    member: Member,
    input: { paymentMethodId: string; customerId: string; paymentCustomerId: number; cardId: number; setupIntentId: string },
  ): Promise<PaymentMethodRecord> {
    const customer = await this.step(confirmPaymentMethodError, () => this.deps.owners.find(member, input.customerId));
    const card = customer
      ? (await this.deps.sources.listCards(member.userId, [customer._id])).find((row) => row._id === input.cardId)
      : undefined;
    const messages: string[] = [];
    if (!customer) messages.push('customer_id: no such customer of this member');
    else if (customer._id !== input.paymentCustomerId) messages.push('payment_customer_id: does not match customer_id');
    if (!card) messages.push('card_id: no such card of this customer');
    if (!customer || messages.length > 0) throw paymentMethodSavingErrors(messages);
    const attached = await this.step(confirmPaymentMethodError, () => this.attachToOwn(member, customer, input));
    return this.deps.sources.insertMethodOnce({
      user_id: member.userId,
      payment_customer_id: customer._id,
      customer_id: customer.customer_id,
      pay_system: CARDPROVIDER,
      payment_method_id: attached.id,
      mode: member.settings.mode,
      type: attached.type,
      data: attached.card ? cardDetailsOf(attached.card) : null,
      card_id: input.cardId,
      method_key: `${member.userId}:${attached.id}`,
    });
  }

  /**
   * GET /user/cards: the member's cards with the resource's default pay system, newest first; the
   * page is cut in memory (a member has few cards), `default` from the pointer (ADR 0122).
   */
  async listCards(
    member: Member,
    page: { page: number; limit: number },
  ): Promise<{ items: Array<UserCardRecord & { isDefault: boolean }>; total: number }> {
    const paySystem = member.settings.defaultPaySystem;
    const customers = await this.deps.customers.listVisible(member.resourceId, member.userId, paySystem);
    const [cards, pointer] = await Promise.all([
      this.deps.sources.listCards(
        member.userId,
        customers.map((customer) => customer._id),
      ),
      this.deps.sources.findDefault(member.userId, paySystem),
    ]);
    const sorted = cards.sort((a, b) => b._id - a._id);
    const start = (Math.max(page.page, 1) - 1) * page.limit;
    return {
      items: sorted
        .slice(start, start + page.limit)
        .map((card) => ({ ...card, isDefault: pointer?.source_type === 'user-card' && pointer.source_id === card._id })),
      total: sorted.length,
    };
  }

  /** GET /user/cardprovider/customers: the member's customers visible here, each with its cards. */
  async listCustomers(member: Member): Promise<Array<{ customer: PaymentCustomerRecord; cards: UserCardRecord[] }>> {
    const customers = (await this.deps.customers.listVisible(member.resourceId, member.userId)).sort((a, b) => b._id - a._id);
    const cards = await this.deps.sources.listCards(
      member.userId,
      customers.map((customer) => customer._id),
    );
    return customers.map((customer) => ({ customer, cards: cards.filter((card) => card.payment_customer_id === customer._id) }));
  }

  /** POST /user/cardprovider/customer/{id}/attach: one of the member's customers, visible here too. */
  async attach(member: Member, id: number): Promise<{ customer: PaymentCustomerRecord; cards: UserCardRecord[] }> {
    const customer = await this.deps.customers.findOwned(member.userId, id);
    if (!customer) throw customerNotFound();
    await this.deps.customers.attach(id, member.resourceId);
    const cards = await this.deps.sources.listCards(member.userId, [id]);
    return { customer: { ...customer, resource_ids: [...new Set([...customer.resource_ids, member.resourceId])] }, cards };
  }

  /**
   * DELETE /user/cardprovider/customer/{id}: the local record of a customer visible here, with its
   * methods and cards; the provider customer is left alone (document 1 D: "local customer record").
   */
  async deleteCustomer(member: Member, id: number): Promise<void> {
    const visible = await this.deps.customers.listVisible(member.resourceId, member.userId);
    if (!visible.some((customer) => customer._id === id)) throw customerNotFound();
    await this.deps.sources.deleteOfCustomer(member.userId, id);
    await this.deps.customers.delete(member.userId, id);
  }

  /** Records a legacy customer of this resource and the cards the provider lists for it. */
  private async record(
    member: Member,
    customerId: string,
    key: string,
    providerCards: ProviderCard[],
  ): Promise<{ customer: PaymentCustomerRecord; cards: UserCardRecord[] }> {
    const customer = await this.deps.customers.insertOnce({
      user_id: member.userId,
      resource_id: member.resourceId,
      resource_ids: member.settings.autoAttach ? [member.resourceId] : [],
      pay_system: CARDPROVIDER,
      customer_id: customerId,
      mode: member.settings.mode,
      kind: 'legacy',
      customer_key: key,
    });
    const cards: UserCardRecord[] = [];
    for (const card of providerCards) cards.push(await this.insertCard(member.userId, customer._id, customerId, card));
    return { customer, cards };
  }

  private insertCard(userId: number, paymentCustomerId: number, customerId: string, card: ProviderCard): Promise<UserCardRecord> {
    return this.deps.sources.insertCardOnce({
      user_id: userId,
      payment_customer_id: paymentCustomerId,
      customer_id: customerId,
      pay_system: CARDPROVIDER,
      card_id: card.id,
      details: cardDetailsOf(card),
      card_key: `${userId}:${card.id}`,
    });
  }

  /** The method on the member's own `customer`, attached now when the setup intent proves it (see confirm). */
  private async attachToOwn(
    member: Member,
    customer: PaymentCustomerRecord,
    input: { paymentMethodId: string; setupIntentId: string },
  ): Promise<ProviderMethod> {
    const provider = await this.deps.providers.for(member.resourceId, member.settings.mode);
    const method = await provider.retrieveMethod(input.paymentMethodId);
    if (!method || (method.customer !== null && method.customer !== customer.customer_id))
      throw confirmPaymentMethodError(NOT_MEMBERS_METHOD);
    if (method.customer === customer.customer_id) return method;
    const intent = input.setupIntentId.startsWith('seti_') ? await provider.retrieveSetupIntent(input.setupIntentId) : null;
    if (!intent || intent.customer !== customer.customer_id || intent.paymentMethod !== method.id || intent.status !== 'succeeded')
      throw confirmPaymentMethodError(
        'a payment method attached to no customer needs the setup intent (intent.id) that confirmed it for this customer',
      );
    return provider.attachMethod(
      method.id,
      customer.customer_id,
      `masthead:${member.resourceId}:${member.userId}:attach:${method.id}:${customer.customer_id}:v1`,
    );
  }

  /** Refuses a token whose card already belongs to a customer: tokens are single-use (docs/adr/0230). */
  private async unusedToken(provider: CardProvider, token: string, toError: (detail: string) => Error): Promise<void> {
    if ((await provider.retrieveToken(token)).used) throw toError('the token was used already');
  }

  /** Runs one provider step; its failure (or a missing key) is that step's documented error. */
  private async step<T>(toError: (detail: string) => Error, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isServiceError(error) && error.code !== 'provider_write_in_progress') throw error;
      if (isServiceError(error)) throw toError('the same request is still being processed');
      providerFailureAs(error, toError);
    }
  }
}
