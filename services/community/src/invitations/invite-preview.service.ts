import type { ServiceClient } from '@masthead/core/grpc';
import { subscriptionNotFound } from '@masthead/core/errors';
import type { CatalogServiceService, Pricing } from '@masthead/proto/catalog';
import type { CreateInvitationCodeRequest, ValidateInviteRequest } from '@masthead/proto/community/invitations';
import type { TeamRepository } from '../teams/team.repository.js';
import { inviteRecord } from '../teams/team.wire.js';
import { inviteUsable } from './invite-activation.service.js';
import { invalidInvitePreview, requestsLimitExceeded } from './invite.errors.js';
import type { InviteRepository } from './invite.repository.js';
import type { PreviewFlood } from './preview-flood.js';
import { generateCode } from './team-invite.service.js';

type Json = Record<string, unknown>;

interface Deps {
  invites: InviteRepository;
  teams: TeamRepository;
  catalog: ServiceClient<typeof CatalogServiceService>;
  flood: PreviewFlood;
}

const publicPricing = (pricing: Pricing | null) =>
  pricing && { id: pricing.id, title: pricing.title, price: pricing.price, currency: pricing.currency, period: pricing.period };

/** POST /invite-validation and the operator's invitation codes (document 2 D; docs/adr/0135-0136). */
export class InvitePreviewService {
  constructor(private readonly deps: Deps) {}

  async validate(request: ValidateInviteRequest): Promise<Json> {
    if (!(await this.deps.flood.allow('invite-validation', request.resourceId, request.ip))) throw requestsLimitExceeded();
    const invite = request.invite ? await this.deps.invites.findByCode(request.resourceId, request.invite) : null;
    if (!invite || !inviteUsable(invite, request.email)) throw invalidInvitePreview();
    if (invite.activations_limit > 0 && (await this.deps.invites.countActivations(invite._id)) >= invite.activations_limit) {
      throw invalidInvitePreview();
    }
    const pricing = invite.pricing_id ? await this.pricing(request.resourceId, invite.pricing_id) : null;
    const team = invite.team_id ? await this.deps.teams.findById(invite.team_id) : null;
    const body: Json = {
      result: true,
      email: request.email || null,
      invite: {
        title: invite.title,
        description: invite.description,
        code: invite.code,
        start_date: invite.start_date?.toISOString() ?? null,
        end_date: invite.end_date?.toISOString() ?? null,
      },
      subscription: team ? null : publicPricing(pricing),
      ticket: null,
      team: team && { id: team._id, name: team.name, subscription: publicPricing(pricing) },
    };
    if (request.returnInvite) body['data'] = inviteRecord(invite);
    return body;
  }

  /** Operator (admin CLI): a free invitation code for a Pricing of the resource. */
  async createCode(request: CreateInvitationCodeRequest): Promise<Json> {
    const pricing = await this.pricing(request.resourceId, request.pricingId);
    if (!pricing) throw subscriptionNotFound();
    const code = request.code || generateCode();
    const invite = await this.deps.invites.insert({
      resource_id: request.resourceId,
      code,
      dedupe_key: `code:${request.resourceId}:${code.toLowerCase()}`,
      email: request.email ? request.email.trim().toLowerCase() : null,
      user_name: null,
      title: request.title || pricing.title,
      description: request.description || '',
      team_id: null,
      pricing_id: pricing.id,
      activations_limit: Math.max(0, request.activationsLimit),
      start_date: request.startDate ? new Date(request.startDate) : null,
      end_date: request.endDate ? new Date(request.endDate) : null,
      created_by: null,
    });
    return inviteRecord(invite);
  }

  private async pricing(resourceId: number, pricingId: number): Promise<Pricing | null> {
    try {
      return await this.deps.catalog.getPricing({ resourceId, pricingId, admin: false }, { idempotent: true });
    } catch {
      return null;
    }
  }
}
