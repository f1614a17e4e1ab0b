import { fieldError } from '@masthead/core/errors';
import type { ServiceClient } from '@masthead/core/grpc';
import { toPaginator, type FilterValue, type PageRequest, type Paginator } from '@masthead/core/pagination';
import type { AccountsServiceService, Resource } from '@masthead/proto/accounts';
import type { IdentityServiceService } from '@masthead/proto/identity';
import type { TransactionRepository } from '../transactions/transaction.repository.js';
import type { TransactionRecord } from '../transactions/transaction.schema.js';

interface Deps {
  transactions: TransactionRepository;
  accounts: ServiceClient<typeof AccountsServiceService>;
  identity: ServiceClient<typeof IdentityServiceService>;
}

export interface ResourcePage {
  items: Resource[];
  paginator: Paginator;
}

export interface ResourceTransactionsPage {
  items: Array<{ resource: Resource; transactions: TransactionRecord[] }>;
  paginator: Paginator;
}

/** `filter` of GET /user/resources: the list item's fields, text matched case-insensitively by substring. */
const RESOURCE_FIELDS: Record<string, (resource: Resource) => string> = {
  title: (resource) => resource.title,
  key: (resource) => resource.publicKey,
  host: (resource) => resource.host ?? '',
};

function resourceMatcher(filter: Record<string, FilterValue>): (resource: Resource) => boolean {
  const unknown = Object.keys(filter).filter((name) => !RESOURCE_FIELDS[name]);
  if (unknown.length > 0)
    throw fieldError(Object.fromEntries(unknown.map((name) => [`filter.${name}`, `${name} is not a filter of this list`])));
  const conditions = Object.entries(filter).map(([name, value]) => {
    const wanted = (Array.isArray(value) ? value : [value]).map((item) => String(item ?? '').toLowerCase());
    return (resource: Resource) => wanted.some((text) => RESOURCE_FIELDS[name]!(resource).toLowerCase().includes(text));
  });
  return (resource) => conditions.every((matches) => matches(resource));
}

const pageOf = <T>(rows: T[], request: Pick<PageRequest, 'page' | 'limit'>) =>
  rows.slice((request.page - 1) * request.limit, request.page * request.limit);

/** Document 1 E's reads of a member's transactions by resource (see CONTEXT.md). */
export class ResourceTransactionsReader {
  constructor(private readonly deps: Deps) {}

  /** GET /user/resources; 409 for an unknown filter field. A member has few resources: cut in memory. */
  async resourcesWithTransactions(userId: number, request: PageRequest): Promise<ResourcePage> {
    const matches = resourceMatcher(request.filter);
    const ids = await this.deps.transactions.resourcesOf(userId);
    const found = await Promise.all(ids.map((id) => this.deps.accounts.getResource({ id }, { idempotent: true }).catch(() => null)));
    const resources = found.filter((resource): resource is Resource => resource !== null && matches(resource));
    return { items: pageOf(resources, request), paginator: toPaginator(request, resources.length) };
  }

  /** GET /user/resources/transactions and /purchases: the partner rule, resources by ID. */
  async byResource(userId: number, partnerId: number, request: Pick<PageRequest, 'page' | 'limit'>): Promise<ResourceTransactionsPage> {
    const [mine, ofPartner] = await Promise.all([
      this.deps.identity.listUserResources({ userId }, { idempotent: true }),
      this.deps.accounts.listPartnerResources({ partnerId }, { idempotent: true }),
    ]);
    const related = new Set(mine.resourceIds);
    const resources = ofPartner.items.filter((resource) => related.has(resource.id)).sort((a, b) => a.id - b.id);
    const page = pageOf(resources, request);
    const transactions = await this.deps.transactions.listAcross(
      page.map((resource) => resource.id),
      userId,
    );
    return {
      items: page.map((resource) => ({ resource, transactions: transactions.filter((row) => row.resource_id === resource.id) })),
      paginator: toPaginator(request, resources.length),
    };
  }
}
