import type { SocialIdentities } from '@masthead/proto/identity/social';
import { bodyFields, stringField } from '../http/body.js';
import { serializeSessionResult, sessionRequest } from './identity.js';
import type { RouteHandler } from './types.js';

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
export const socialSignIn: RouteHandler = async (context, req, { social }) => {
  const fields = bodyFields(req);
  const result = await social.socialSignIn({
    resourceId: context.resource!.id,
    provider: stringField(fields, 'provider'),
    idToken: stringField(fields, 'id_token'),
    ...sessionRequest(context, fields),
  });
  return { body: serializeSessionResult(result) };
};

/** PUT /user/social (document 1, section C): links `provider` + `id_token` to the member. */
export const linkSocial: RouteHandler = async (context, req, { social }) => {
  const fields = bodyFields(req);
  const identities = await social.linkSocialIdentity({
    userId: context.caller.user!.id,
    provider: stringField(fields, 'provider'),
    idToken: stringField(fields, 'id_token'),
  });
  return { body: serializeIdentities(identities) };
};

/** POST /user/social/delete: unlinks the member's identity of `provider`. */
export const unlinkSocial: RouteHandler = async (context, req, { social }) => {
  const identities = await social.unlinkSocialIdentity({
    userId: context.caller.user!.id,
    provider: stringField(bodyFields(req), 'provider'),
  });
  return { body: serializeIdentities(identities) };
};
