import { invalidRequestField, subscriptionNotFound } from '@masthead/core/errors';
import { isDuplicateKey } from '@masthead/core/mongo';
import type { ClientOf } from '@masthead/core/clients';
import type { Pricing } from '@masthead/proto/catalog';
import type { CheckInviteRequest, CreateInvitationCodeRequest, ValidateInviteRequest } from '@masthead/proto/community/invitations';
import type { TeamRepository } from '../teams/team.repository.js';
import type { TeamRecord } from '../teams/team.schema.js';
import { inviteUsable } from './invite-activation.service.js';
import { incorrectInvite, invalidInvitePreview, requestsLimitExceeded } from './invite.errors.js';
import type { InviteRepository } from './invite.repository.js';
import type { InviteRecord } from './invite.schema.js';
import type { PreviewFlood } from './preview-flood.js';
import { EMAIL_PATTERN, generateCode } from '../support/codes.js';

interface Deps {
  invites: InviteRepository;
  teams: TeamRepository;
  pricings: ClientOf<'pricings'>;
  flood: PreviewFlood;
}

/** What a preview found; the gateway shapes the public projections from it (ADR 0095). */
export interface InvitePreview {
  invite: InviteRecord;
  team: TeamRecord | null;
}

/** Operator codes: the code rule of team invites (document 2 Limits: 10-40) and its email rule. */
const CODE_PATTERN = /^[A-Za-z0-9_-]{10,40}$/;
const EMAIL_MAX = 60;

const invalid = (field: string, message: string) => invalidRequestField(field, message, { [field]: message });

/** POST /invite-validation, the exchange's check and the operator's invitation codes (document 2 D; docs/adr/0135-0138). */
export class InvitePreviewService {
  constructor(private readonly deps: Deps) {}

  async validate(request: ValidateInviteRequest): Promise<InvitePreview> {
    if (!(await this.deps.flood.allow('invite-validation', request.resourceId, request.ip))) throw requestsLimitExceeded();
    const invite = await this.usable(request.resourceId, request.invite, request.email);
    // The final lookup (document 2 D: 406 incorrect_invite): the invite with its team and Pricing.
    const team = invite.team_id ? await this.deps.teams.findById(invite.team_id) : null;
    if (invite.team_id && !team?.active) throw incorrectInvite();
    if (invite.pricing_id && !(await this.pricing(request.resourceId, invite.pricing_id))) throw incorrectInvite();
    return { invite, team };
  }

  /** The identity provider exchange's pre-check: the member-free checks, no flood counter (docs/adr/0139). */
  async check(request: CheckInviteRequest): Promise<void> {
    await this.usable(request.resourceId, request.invite, request.email);
  }

  /** Operator (admin CLI): a free invitation code for a free Pricing of the resource (docs/adr/0138). */
  async createCode(request: CreateInvitationCodeRequest): Promise<InviteRecord> {
    const pricing = await this.pricing(request.resourceId, request.pricingId);
    if (!pricing) throw subscriptionNotFound();
    if (pricing.price > 0) throw invalid('subscription_id', 'invitation codes grant free Pricings only');
    if (request.code && !CODE_PATTERN.test(request.code)) throw invalid('code', 'code must be 10-40 letters, digits, - or _');
    const email = request.email.trim().toLowerCase();
    if (email && (email.length > EMAIL_MAX || !EMAIL_PATTERN.test(email))) throw invalid('email', 'email must be a valid email');
    const startDate = this.date('start_date', request.startDate);
    const endDate = this.date('end_date', request.endDate);
    if (startDate && endDate && endDate <= startDate) throw invalid('end_date', 'end_date must be after start_date');
    if (request.activationsLimit < 0) throw invalid('activations_limit', 'activations_limit must be 0 (no cap) or positive');
    const code = request.code || generateCode();
    try {
      const invite = await this.deps.invites.insert({
        resource_id: request.resourceId,
        code,
        dedupe_key: `code:${request.resourceId}:${code.toLowerCase()}`,
        email: email || null,
        user_name: null,
        title: request.title.trim() || pricing.title,
        description: request.description.trim(),
        team_id: null,
        pricing_id: pricing.id,
        activations_limit: request.activationsLimit,
        start_date: startDate,
        end_date: endDate,
        created_by: null,
      });
      return invite;
    } catch (error) {
      // Codes are unique per resource, case-insensitive (the lookup key).
      if (isDuplicateKey(error)) throw invalid('code', 'the resource already has this code');
      throw error;
    }
  }

  /** The checks without a member (document 2 D): the code in the resource, the window, the email, the cap. */
  private async usable(resourceId: number, code: string, email: string): Promise<InviteRecord> {
    const invite = code ? await this.deps.invites.findByCode(resourceId, code) : null;
    if (!invite || !inviteUsable(invite, email)) throw invalidInvitePreview();
    if (invite.activations_limit > 0 && (await this.deps.invites.countActivations(invite._id)) >= invite.activations_limit) {
      throw invalidInvitePreview();
    }
    return invite;
  }

  private date(field: string, value: string | undefined): Date | null {
    if (!value) return null;
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) throw invalid(field, `${field} must be an ISO 8601 date`);
    return date;
  }

  private async pricing(resourceId: number, pricingId: number): Promise<Pricing | null> {
    try {
      return await this.deps.pricings.getPricing({ resourceId, pricingId }, { idempotent: true });
    } catch {
      return null;
    }
  }
}
