import * as catalog from '../handlers/catalog.js';
import * as external from '../handlers/external.js';
import * as memberships from '../handlers/memberships.js';
import { pageRequest } from '../http/request.js';
import { route, type RouteDefinition } from './define.js';

/** Catalog: plans, Pricings, memberships, external subscription lookup: the OPERATIONS.md rows catalog owns, by method then path. */
export const CATALOG_ROUTES: readonly RouteDefinition[] = [
  route({
    method: 'DELETE',
    path: '/user/subscriptions/{id}',
    service: 'catalog',
    access: 'member',
    request: memberships.membershipRequest,
    handler: memberships.detachMembership,
  }),
  route({
    method: 'GET',
    path: '/integrations/external/subscription',
    service: 'catalog',
    access: 'serviceAccount',
    request: external.externalSubscriptionRequest,
    handler: external.getExternalSubscription,
  }),
  route({ method: 'GET', path: '/integrations/plans', service: 'catalog', access: 'guest', handler: catalog.listEmbeddedPlans }),
  route({
    method: 'GET',
    path: '/plans',
    service: 'catalog',
    access: 'guestWithResource',
    request: pageRequest,
    handler: catalog.listPlans,
  }),
  route({
    method: 'GET',
    path: '/plans/{id}',
    service: 'catalog',
    access: 'guestWithResource',
    request: catalog.planRequest,
    handler: catalog.getPlan,
  }),
  route({
    method: 'GET',
    path: '/subscriptions',
    service: 'catalog',
    access: 'guestWithResource',
    request: pageRequest,
    handler: catalog.listPricings,
  }),
  route({
    method: 'GET',
    path: '/subscriptions/{id}',
    service: 'catalog',
    access: 'guestWithResource',
    request: catalog.pricingRequest,
    handler: catalog.getPricing,
  }),
  route({
    method: 'GET',
    path: '/user/plans',
    service: 'catalog',
    access: 'member',
    request: pageRequest,
    handler: memberships.listUserPlans,
  }),
  route({
    method: 'GET',
    path: '/user/plans/history',
    service: 'catalog',
    access: 'member',
    request: pageRequest,
    handler: memberships.listMembershipHistory,
  }),
  route({
    method: 'GET',
    path: '/user/resources/subscriptions',
    service: 'catalog',
    access: 'member',
    request: memberships.pageAndFilterRequest,
    handler: memberships.listResourceMemberships,
  }),
  route({
    method: 'GET',
    path: '/user/teams/{team_id}/plans',
    service: 'catalog',
    access: 'member',
    request: memberships.teamPlansRequest,
    handler: memberships.listTeamPlans,
  }),
  route({
    method: 'PUT',
    path: '/user/subscriptions/{id}',
    service: 'catalog',
    access: 'member',
    request: memberships.renewalRequest,
    handler: memberships.setMembershipRenewal,
  }),
];
