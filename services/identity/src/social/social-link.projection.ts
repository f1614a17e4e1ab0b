import type { SocialIdentities } from '@masthead/proto/identity/social';
import type { SocialLinkRecord } from './social-link.schema.js';

/** The user's links → the wire list (the gateway writes the JSON field names). */
export const toSocialIdentities = (links: SocialLinkRecord[]): SocialIdentities => ({
  identities: links.map((link) => ({
    provider: link.provider,
    sub: link.sub,
    email: link.email ?? undefined,
    linkedAt: link.created_at.toISOString(),
  })),
});
