import { invalidEmail } from '@masthead/core/errors';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import { normalizeEmail } from '../signin/sign-in.command.js';
import type { UserRepository } from '../users/user.repository.js';
import type { UserRecord } from '../users/user.schema.js';
import type { BackgroundWork } from './background-work.js';
import type { CodeMailer, MailedPurpose } from './code-mailer.js';
import type { RecoveryLimits } from './recovery-limits.js';

interface CodeRequestDeps {
  users: UserRepository;
  relationships: RelationshipRepository;
  mailer: CodeMailer;
  limits: RecoveryLimits;
  background: BackgroundWork;
}

export interface CodeRequest {
  resourceId: number;
  email: string;
  ip: string;
}

/**
 * POST /resend-confirmation and POST /reset-password. Neither says whether the email has an
 * account: after the limits and the email's syntax, both answer at once and look the email up
 * afterwards, so a known and an unknown email get the same answer in the same time
 * (docs/adr/0055). The per-account limit is keyed by the normalized email, known or not.
 */
export class CodeRequestService {
  constructor(private readonly deps: CodeRequestDeps) {}

  /** Mails a new confirmation code to an unconfirmed member of the resource. */
  resendConfirmation(request: CodeRequest): Promise<void> {
    return this.accept('email_confirmation', request, async (user) => {
      const relationship = await this.deps.relationships.find(request.resourceId, user._id);
      return relationship !== null && !user.email_confirmed;
    });
  }

  /** Mails a reset code to an active account; a member who is not here yet joins on confirming. */
  requestPasswordReset(request: CodeRequest): Promise<void> {
    return this.accept('password_reset', request, async () => true);
  }

  private async accept(purpose: MailedPurpose, request: CodeRequest, eligible: (user: UserRecord) => Promise<boolean>): Promise<void> {
    await this.deps.limits.requestFromAddress(purpose, request.ip);
    const email = normalizeEmail(request.email);
    if (!email) throw invalidEmail();
    await this.deps.limits.requestForAccount(purpose, email);
    this.deps.background.run(`${purpose} request`, async () => {
      const user = await this.deps.users.findCredentialsByEmail(email);
      // Service-account users have no mailbox and no password (document 2, section I).
      if (!user || !user.active || user.role === 'service_account' || !(await eligible(user))) return;
      await this.deps.mailer.send(purpose, { userId: user._id, resourceId: request.resourceId, email });
    });
  }
}
