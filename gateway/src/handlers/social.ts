import type { SocialIdentities } from '@masthead/proto/identity/social';
import { type z } from 'zod';
import { fromFields, text } from '../http/request.js';
import type { Handler } from '../routes/define.js';
import { serializeSessionResult, sessionFields, sessionRequest } from './identity.js';

/** The member's linked identities (docs/adr/0066): `{items: [{provider, sub, email, linked_at}]}`. */
const serializeIdentities = ({ identities }: SocialIdentities) => ({
  items: identities.map((identity) => ({
    provider: identity.provider,
    sub: identity.sub,
    email: identity.email ?? null,
    linked_at: identity.linkedAt,
  })),
});

/**
 * POST /social-authorization (document 1, section B): like POST /authorization, JSON or form
 * (form wins), with `provider` and `id_token` in place of email and password.
 */
export const socialSignInRequest = fromFields({ provider: text, id_token: text, ...sessionFields });

export const socialSignIn: Handler<'guestWithResource', z.output<typeof socialSignInRequest>> = async (context, fields, { social }) => {
  const result = await social.socialSignIn(
    {
      resourceId: context.resource.id,
      provider: fields.provider,
      idToken: fields.id_token,
      ...sessionRequest(context, fields),
    },
    { requestId: context.requestId },
  );
  return { body: serializeSessionResult(result) };
};

/** PUT /user/social (document 1, section C): links `provider` + `id_token` to the member. */
export const linkSocialRequest = fromFields({ provider: text, id_token: text });

export const linkSocial: Handler<'member', z.output<typeof linkSocialRequest>> = async (context, fields, { social }) => {
  const identities = await social.linkSocialIdentity(
    { userId: context.caller.user.id, provider: fields.provider, idToken: fields.id_token },
    { requestId: context.requestId },
  );
  return { body: serializeIdentities(identities) };
};

/** POST /user/social/delete: unlinks the member's identity of `provider`. */
export const unlinkSocialRequest = fromFields({ provider: text });

export const unlinkSocial: Handler<'member', z.output<typeof unlinkSocialRequest>> = async (context, { provider }, { social }) => {
  const identities = await social.unlinkSocialIdentity({ userId: context.caller.user.id, provider }, { requestId: context.requestId });
  return { body: serializeIdentities(identities) };
};
