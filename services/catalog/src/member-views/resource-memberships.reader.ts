import type { CallContext, ServiceClient } from '@masthead/core/grpc';
import { toPaginator, type PageRequest, type Paginator } from '@masthead/core/pagination';
import type { AccountsServiceService, Resource } from '@masthead/proto/accounts';
import type { IdentityServiceService } from '@masthead/proto/identity';
import type { MembershipReader, MembershipView } from '../memberships/membership.reader.js';
import type { MembershipRepository } from '../memberships/membership.repository.js';

interface ResourceMembershipsReaderDeps {
  memberships: MembershipRepository;
  reader: MembershipReader;
  accounts: ServiceClient<typeof AccountsServiceService>;
  identity: ServiceClient<typeof IdentityServiceService>;
}

export interface ResourceMembershipsView {
  resource: Resource;
  memberships: MembershipView[];
}

export interface ResourceMembershipsPageView {
  items: ResourceMembershipsView[];
  paginator: Paginator;
}

/**
 * GET /user/resources/subscriptions (document 1 E): the user's memberships grouped by resource.
 * The resources are the active ones of the selected resource's partner (none if that partner is
 * inactive; accounts service) where the user has a relationship (identity service), by ID
 * ascending; page and limit paginate them, and each carries all of the user's active
 * memberships there, unpaginated. Catalog gathers this so the gateway makes one call.
 */
export class ResourceMembershipsReader {
  constructor(private readonly deps: ResourceMembershipsReaderDeps) {}

  async list(
    userId: number,
    partnerId: number,
    request: Pick<PageRequest, 'page' | 'limit'>,
    call: CallContext,
  ): Promise<ResourceMembershipsPageView> {
    const options = { ...call, idempotent: true };
    const [mine, ofPartner] = await Promise.all([
      this.deps.identity.listUserResources({ userId }, options),
      this.deps.accounts.listPartnerResources({ partnerId }, options),
    ]);
    const related = new Set(mine.resourceIds);
    const resources = ofPartner.items.filter((resource) => related.has(resource.id)).sort((a, b) => a.id - b.id);
    const start = (request.page - 1) * request.limit;
    const page = resources.slice(start, start + request.limit);
    const resourceIds = page.map((resource) => resource.id);
    const views = await this.deps.reader.withPricingsAcross(resourceIds, await this.deps.memberships.listActiveAcross(resourceIds, userId));
    return {
      items: page.map((resource) => ({
        resource,
        memberships: views.filter((view) => view.membership.resource_id === resource.id),
      })),
      paginator: toPaginator(request, resources.length),
    };
  }
}
