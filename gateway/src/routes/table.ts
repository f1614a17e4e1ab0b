import * as access from '../handlers/access.js';
import * as accounts from '../handlers/accounts.js';
import * as catalog from '../handlers/catalog.js';
import * as external from '../handlers/external.js';
import * as extraData from '../handlers/extra-data.js';
import * as identity from '../handlers/identity.js';
import * as idp from '../handlers/idp.js';
import * as recovery from '../handlers/recovery.js';
import * as sessions from '../handlers/sessions.js';
import * as social from '../handlers/social.js';
import * as memberships from '../handlers/memberships.js';
import * as profile from '../handlers/profile.js';
import * as localization from '../handlers/localization.js';
import type { RouteHandler } from '../handlers/types.js';
import type { ServiceName } from '../clients.js';
import type { AccessClass } from './access.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteDefinition {
  method: HttpMethod;
  /** Path under /api/v1 as the spec writes it, `{param}` for path parameters. */
  path: string;
  /** The service that owns the operation (../shared/spec/OPERATIONS.md). */
  service: ServiceName;
  access: AccessClass;
  /** Absent until the operation is built: the route then answers 501 after its shared checks. */
  handler?: RouteHandler;
  /**
   * The operation takes a multipart/form-data upload: such a body is read only after the shared
   * checks, within PHOTO_MAX_BYTES, into `req.uploadedFile` (ADR 0063, 0080). On every other
   * route a multipart body is a body the route does not decode, held to BODY_LIMIT.
   */
  multipart?: true;
}

/**
 * Every operation of the two spec documents (OPERATIONS.md, 162 rows, by service then path),
 * plus POST /user/event (document 2, section L), which the inventory leaves out.
 */
export const ROUTES: readonly RouteDefinition[] = [
  { method: 'DELETE', path: '/admin/integrations/cardprovider/connect', service: 'billing', access: 'admin' },
  { method: 'DELETE', path: '/integrations/external/subscription', service: 'billing', access: 'serviceAccount' },
  { method: 'DELETE', path: '/user/card/{id}', service: 'billing', access: 'member' },
  { method: 'DELETE', path: '/user/cardprovider/customer/{id}', service: 'billing', access: 'member' },
  { method: 'DELETE', path: '/user/extra/data', service: 'identity', access: 'member', handler: extraData.deleteExtraData },
  {
    method: 'DELETE',
    path: '/user/extra/data/custom-fields/{field_key}',
    service: 'identity',
    access: 'member',
    handler: extraData.deleteCustomField,
  },
  { method: 'DELETE', path: '/user/pass/{id}/invite', service: 'community', access: 'member' },
  { method: 'DELETE', path: '/user/payment-sources/{source_type}/{id}', service: 'billing', access: 'member' },
  { method: 'DELETE', path: '/user/profile', service: 'identity', access: 'member', handler: access.removeProfile },
  { method: 'DELETE', path: '/user/subscriptions/{id}', service: 'catalog', access: 'member', handler: memberships.detachMembership },
  { method: 'DELETE', path: '/user/teams/{team_id}', service: 'community', access: 'member' },
  { method: 'DELETE', path: '/user/teams/{team_id}/invites/{invite_id}', service: 'community', access: 'member' },
  { method: 'DELETE', path: '/user/teams/{team_id}/users/{user_id}', service: 'community', access: 'member' },
  { method: 'GET', path: '/admin/countries', service: 'accounts', access: 'admin', handler: localization.listCountries },
  { method: 'GET', path: '/admin/currency', service: 'accounts', access: 'admin', handler: localization.adminListCurrencies },
  { method: 'GET', path: '/admin/integrations/cardprovider/connect', service: 'billing', access: 'admin' },
  { method: 'GET', path: '/auth/external/{token}', service: 'identity', access: 'guestWithResource', handler: recovery.externalAuth },
  { method: 'GET', path: '/countries', service: 'accounts', access: 'guest', handler: localization.listCountries },
  { method: 'GET', path: '/currency', service: 'accounts', access: 'guest', handler: localization.listCurrencies },
  { method: 'GET', path: '/geoinfo', service: 'accounts', access: 'guest', handler: localization.getGeoInfo },
  { method: 'GET', path: '/idp/account', service: 'identity', access: 'guestWithResource', handler: idp.providerAccount },
  { method: 'GET', path: '/idp/check/email', service: 'identity', access: 'guestWithResource', handler: idp.checkEmail },
  { method: 'GET', path: '/idp/custom-token', service: 'identity', access: 'member', handler: idp.customToken },
  { method: 'GET', path: '/integrations/audience/categories', service: 'integrations', access: 'member' },
  { method: 'GET', path: '/integrations/audience/interests', service: 'integrations', access: 'member' },
  { method: 'GET', path: '/integrations/audience/member-interests', service: 'integrations', access: 'member' },
  { method: 'GET', path: '/integrations/audience/subscriber-info', service: 'integrations', access: 'member' },
  { method: 'GET', path: '/integrations/audience/sync-choices', service: 'integrations', access: 'member' },
  { method: 'GET', path: '/integrations/crm/tags', service: 'integrations', access: 'member' },
  { method: 'GET', path: '/integrations/crm/user/tags', service: 'integrations', access: 'member' },
  {
    method: 'GET',
    path: '/integrations/external/subscription',
    service: 'catalog',
    access: 'serviceAccount',
    handler: external.getExternalSubscription,
  },
  { method: 'GET', path: '/integrations/external/transaction', service: 'billing', access: 'serviceAccount' },
  { method: 'GET', path: '/integrations/listmgr/get-lists', service: 'integrations', access: 'guestWithResource' },
  { method: 'GET', path: '/integrations/listmgr/interests', service: 'integrations', access: 'member' },
  { method: 'GET', path: '/integrations/plans', service: 'catalog', access: 'guest', handler: catalog.listEmbeddedPlans },
  { method: 'GET', path: '/integrations/resource-settings', service: 'integrations', access: 'guest' },
  { method: 'GET', path: '/integrations/resource/captcha-settings', service: 'integrations', access: 'guestWithResource' },
  { method: 'GET', path: '/integrations/templates/{name}', service: 'integrations', access: 'guestWithResource' },
  { method: 'GET', path: '/languages', service: 'accounts', access: 'guest', handler: localization.listLanguages },
  { method: 'GET', path: '/languages/{id}', service: 'accounts', access: 'guest', handler: localization.getLanguage },
  { method: 'GET', path: '/logout', service: 'identity', access: 'memberOptionalResource', handler: sessions.logout },
  { method: 'GET', path: '/plans', service: 'catalog', access: 'guestWithResource', handler: catalog.listPlans },
  { method: 'GET', path: '/plans/{id}', service: 'catalog', access: 'guestWithResource', handler: catalog.getPlan },
  { method: 'GET', path: '/recipient/sponsored-subscriptions/slots', service: 'community', access: 'member' },
  { method: 'GET', path: '/recipient/sponsored-subscriptions/slots/{code}', service: 'community', access: 'member' },
  { method: 'GET', path: '/resource', service: 'accounts', access: 'memberAnySession', handler: accounts.getResource },
  { method: 'GET', path: '/sponsor/sponsored-subscriptions', service: 'community', access: 'member' },
  { method: 'GET', path: '/sponsor/sponsored-subscriptions/slots/{slot_id}', service: 'community', access: 'member' },
  { method: 'GET', path: '/sponsor/sponsored-subscriptions/{id}', service: 'community', access: 'member' },
  { method: 'GET', path: '/sponsor/sponsored-subscriptions/{id}/slots', service: 'community', access: 'member' },
  { method: 'GET', path: '/subscriptions', service: 'catalog', access: 'guestWithResource', handler: catalog.listPricings },
  { method: 'GET', path: '/subscriptions/{id}', service: 'catalog', access: 'guestWithResource', handler: catalog.getPricing },
  { method: 'GET', path: '/ti-event/{id}/tickets', service: 'community', access: 'guestWithResource' },
  { method: 'GET', path: '/ti-events', service: 'community', access: 'guestWithResource' },
  { method: 'GET', path: '/user', service: 'identity', access: 'memberOptionalResource', handler: identity.getUser },
  { method: 'GET', path: '/user/cardprovider/customers', service: 'billing', access: 'member' },
  { method: 'GET', path: '/user/cards', service: 'billing', access: 'member' },
  { method: 'GET', path: '/user/extra/data', service: 'identity', access: 'member', handler: extraData.getExtraData },
  { method: 'GET', path: '/user/extra/data/custom-fields', service: 'identity', access: 'member', handler: extraData.getCustomFields },
  { method: 'GET', path: '/user/has-password', service: 'identity', access: 'member', handler: profile.hasPassword },
  { method: 'GET', path: '/user/pass/{id}', service: 'community', access: 'member' },
  { method: 'GET', path: '/user/pass/{id}/unassign', service: 'community', access: 'member' },
  { method: 'GET', path: '/user/payment-provider/cardprovider/customer', service: 'billing', access: 'member' },
  { method: 'GET', path: '/user/payment-sources', service: 'billing', access: 'member' },
  { method: 'GET', path: '/user/plans', service: 'catalog', access: 'member', handler: memberships.listUserPlans },
  { method: 'GET', path: '/user/plans/history', service: 'catalog', access: 'member', handler: memberships.listMembershipHistory },
  { method: 'GET', path: '/user/resources', service: 'billing', access: 'member' },
  { method: 'GET', path: '/user/resources/purchases', service: 'billing', access: 'member' },
  {
    method: 'GET',
    path: '/user/resources/subscriptions',
    service: 'catalog',
    access: 'member',
    handler: memberships.listResourceMemberships,
  },
  { method: 'GET', path: '/user/resources/transactions', service: 'billing', access: 'member' },
  { method: 'GET', path: '/user/tags', service: 'identity', access: 'member', handler: profile.listTags },
  { method: 'GET', path: '/user/teams', service: 'community', access: 'member' },
  { method: 'GET', path: '/user/teams/{team_id}', service: 'community', access: 'member' },
  { method: 'GET', path: '/user/teams/{team_id}/invites', service: 'community', access: 'member' },
  { method: 'GET', path: '/user/teams/{team_id}/invites/{invite_id}', service: 'community', access: 'member' },
  { method: 'GET', path: '/user/teams/{team_id}/plans', service: 'catalog', access: 'member', handler: memberships.listTeamPlans },
  { method: 'GET', path: '/user/teams/{team_id}/users', service: 'community', access: 'member' },
  { method: 'GET', path: '/user/teams/{team_id}/users/{user_id}', service: 'community', access: 'member' },
  { method: 'GET', path: '/user/ti-event-tickets', service: 'community', access: 'member' },
  { method: 'GET', path: '/user/ti-event/{id}/access', service: 'community', access: 'member' },
  { method: 'GET', path: '/user/ti-event/{id}/passes', service: 'community', access: 'member' },
  { method: 'GET', path: '/user/ti-events', service: 'community', access: 'member' },
  { method: 'GET', path: '/user/transactions', service: 'billing', access: 'member' },
  { method: 'GET', path: '/user/transactions/{id}', service: 'billing', access: 'member' },
  { method: 'GET', path: '/user/transactions/{id}/download', service: 'billing', access: 'member' },
  { method: 'GET', path: '/user/transactions/{id}/receipt/download', service: 'billing', access: 'member' },
  { method: 'POST', path: '/account-requests', service: 'accounts', access: 'external' },
  { method: 'POST', path: '/account-requests-payment', service: 'billing', access: 'external' },
  { method: 'POST', path: '/admin/integrations/cardprovider/connect', service: 'billing', access: 'admin' },
  { method: 'POST', path: '/admin/teams/{team_id}/invites/{invite_id}/resend', service: 'community', access: 'member' },
  { method: 'POST', path: '/authorization', service: 'identity', access: 'guest', handler: identity.signIn },
  { method: 'POST', path: '/authorization/refresh', service: 'identity', access: 'guest', handler: sessions.refresh },
  // Guest ACL so that its documented 404 user_not_exist (no resolved user) is reachable.
  { method: 'POST', path: '/cleanup-refresh', service: 'identity', access: 'guestOrMember', handler: sessions.cleanupRefresh },
  { method: 'POST', path: '/confirm-email', service: 'identity', access: 'guestWithResource', handler: recovery.confirmEmail },
  { method: 'POST', path: '/confirm-password', service: 'identity', access: 'guestWithResource', handler: recovery.confirmPassword },
  { method: 'POST', path: '/email-validation', service: 'identity', access: 'guestWithResource', handler: identity.validateEmail },
  { method: 'POST', path: '/idp/email-auth-link', service: 'identity', access: 'guestWithResource', handler: idp.emailAuthLink },
  { method: 'POST', path: '/idp/oauth/token', service: 'identity', access: 'guestWithResource', handler: idp.exchangeToken },
  { method: 'POST', path: '/idp/password-reset', service: 'identity', access: 'guestWithResource', handler: idp.passwordReset },
  { method: 'POST', path: '/idp/registration', service: 'identity', access: 'guestWithResource', handler: idp.registerIdentity },
  { method: 'POST', path: '/idp/revoke-token', service: 'identity', access: 'guestWithResource', handler: idp.revokeToken },
  { method: 'POST', path: '/idp/sign-in', service: 'identity', access: 'guestWithResource', handler: idp.providerSignIn },
  { method: 'POST', path: '/idp/verify-token', service: 'identity', access: 'guestWithResource', handler: idp.verifyToken },
  { method: 'POST', path: '/integrations/audience/add-tags', service: 'integrations', access: 'member' },
  { method: 'POST', path: '/integrations/audience/subscribe', service: 'integrations', access: 'member' },
  { method: 'POST', path: '/integrations/audience/unsubscribe', service: 'integrations', access: 'member' },
  { method: 'POST', path: '/integrations/external/subscription', service: 'billing', access: 'serviceAccount' },
  { method: 'POST', path: '/integrations/listmgr/subscribe', service: 'integrations', access: 'member' },
  { method: 'POST', path: '/integrations/listmgr/unsubscribe', service: 'integrations', access: 'member' },
  { method: 'POST', path: '/invite-activation', service: 'community', access: 'member' },
  { method: 'POST', path: '/invite-validation', service: 'community', access: 'guestWithResource' },
  { method: 'POST', path: '/oauth/token', service: 'identity', access: 'guestWithResource', handler: sessions.exchangeCode },
  { method: 'POST', path: '/registration', service: 'identity', access: 'guestWithResource', handler: identity.register },
  { method: 'POST', path: '/resend-confirmation', service: 'identity', access: 'guestWithResource', handler: recovery.resendConfirmation },
  { method: 'POST', path: '/reset-password', service: 'identity', access: 'guestWithResource', handler: recovery.resetPassword },
  { method: 'POST', path: '/social-authorization', service: 'identity', access: 'guestWithResource', handler: social.socialSignIn },
  { method: 'POST', path: '/ti-event/pass/invite-activation', service: 'community', access: 'member' },
  { method: 'POST', path: '/ti-event/pass/invite-validation', service: 'community', access: 'guestWithResource' },
  { method: 'POST', path: '/ti-event/ticket/pass/authorization', service: 'community', access: 'guestWithResource' },
  { method: 'POST', path: '/user/card', service: 'billing', access: 'member' },
  { method: 'POST', path: '/user/card/attempt-attach', service: 'billing', access: 'member' },
  { method: 'POST', path: '/user/card/{id}/default', service: 'billing', access: 'member' },
  { method: 'POST', path: '/user/cardprovider/confirm-payment-method', service: 'billing', access: 'member' },
  { method: 'POST', path: '/user/cardprovider/customer', service: 'billing', access: 'member' },
  { method: 'POST', path: '/user/cardprovider/customer/import', service: 'billing', access: 'member' },
  { method: 'POST', path: '/user/cardprovider/customer/{id}/attach', service: 'billing', access: 'member' },
  { method: 'POST', path: '/user/cardprovider/token', service: 'billing', access: 'member' },
  { method: 'POST', path: '/user/history', service: 'identity', access: 'member', handler: profile.writeHistory },
  { method: 'POST', path: '/user/pass/{id}/invite', service: 'community', access: 'member' },
  { method: 'POST', path: '/user/password', service: 'identity', access: 'member', handler: profile.setPassword },
  { method: 'POST', path: '/user/payment-provider/cardprovider/save-intents', service: 'billing', access: 'member' },
  { method: 'POST', path: '/user/payment-provider/cardprovider/setup-intents', service: 'billing', access: 'member' },
  { method: 'POST', path: '/user/photo', service: 'identity', access: 'member', handler: profile.uploadPhoto, multipart: true },
  { method: 'POST', path: '/user/social/delete', service: 'identity', access: 'member', handler: social.unlinkSocial },
  { method: 'POST', path: '/user/suspend', service: 'identity', access: 'member', handler: access.suspendMember },
  { method: 'POST', path: '/user/teams', service: 'community', access: 'member' },
  { method: 'POST', path: '/user/teams/{team_id}/invites', service: 'community', access: 'member' },
  { method: 'POST', path: '/user/teams/{team_id}/invites/{invite_id}/resend', service: 'community', access: 'member' },
  { method: 'POST', path: '/user/teams/{team_id}/users/{user_id}/suspend', service: 'community', access: 'member' },
  { method: 'POST', path: '/user/transactions/{id}/receipt', service: 'billing', access: 'member' },
  { method: 'PUT', path: '/idp/docstore/user', service: 'identity', access: 'member', handler: idp.updateDocstoreUser },
  { method: 'PUT', path: '/integrations/crm/user/tags', service: 'integrations', access: 'member' },
  { method: 'PUT', path: '/integrations/external/refund', service: 'billing', access: 'serviceAccount' },
  { method: 'PUT', path: '/integrations/external/subscription', service: 'billing', access: 'serviceAccount' },
  { method: 'PUT', path: '/recipient/sponsored-subscriptions/slots/activate', service: 'community', access: 'member' },
  { method: 'PUT', path: '/recipient/sponsored-subscriptions/slots/{slot_id}/sponsor/turn-off', service: 'community', access: 'member' },
  { method: 'PUT', path: '/sponsor/sponsored-subscriptions/slots/{slot_id}/clear', service: 'community', access: 'member' },
  { method: 'PUT', path: '/sponsor/sponsored-subscriptions/slots/{slot_id}/invitation', service: 'community', access: 'member' },
  { method: 'PUT', path: '/sponsor/sponsored-subscriptions/{id}', service: 'community', access: 'member' },
  { method: 'PUT', path: '/user', service: 'identity', access: 'member', handler: profile.updateProfile },
  { method: 'PUT', path: '/user/email', service: 'identity', access: 'member', handler: recovery.changeEmail },
  { method: 'PUT', path: '/user/extra/data', service: 'identity', access: 'member', handler: extraData.putExtraData },
  { method: 'PUT', path: '/user/extra/data/custom-fields', service: 'identity', access: 'member', handler: extraData.putCustomFields },
  { method: 'PUT', path: '/user/pass/{id}/assign', service: 'community', access: 'member' },
  { method: 'PUT', path: '/user/pass/{id}/extra', service: 'community', access: 'member' },
  { method: 'PUT', path: '/user/password', service: 'identity', access: 'member', handler: profile.changePassword },
  { method: 'PUT', path: '/user/payment-sources/{source_type}/{id}/default', service: 'billing', access: 'member' },
  { method: 'PUT', path: '/user/social', service: 'identity', access: 'member', handler: social.linkSocial },
  { method: 'PUT', path: '/user/subscriptions/{id}', service: 'catalog', access: 'member', handler: memberships.setMembershipRenewal },
  { method: 'PUT', path: '/user/teams/{team_id}', service: 'community', access: 'member' },
  { method: 'PUT', path: '/user/teams/{team_id}/invites/{invite_id}', service: 'community', access: 'member' },
  { method: 'PUT', path: '/user/teams/{team_id}/users/{user_id}', service: 'community', access: 'member' },
  { method: 'POST', path: '/user/event', service: 'integrations', access: 'guestWithResource' },
];
