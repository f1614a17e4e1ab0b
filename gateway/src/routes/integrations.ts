import * as embedded from '../handlers/embedded.js';
import * as publicEvents from '../handlers/public-events.js';
import { pending, route, type RouteDefinition } from './define.js';

/** Integrations: audience, CRM, list manager, templates, events: the OPERATIONS.md rows integrations owns, by method then path. */
export const INTEGRATIONS_ROUTES: readonly RouteDefinition[] = [
  pending({ method: 'GET', path: '/integrations/audience/categories', service: 'integrations', access: 'member' }),
  pending({ method: 'GET', path: '/integrations/audience/interests', service: 'integrations', access: 'member' }),
  pending({ method: 'GET', path: '/integrations/audience/member-interests', service: 'integrations', access: 'member' }),
  pending({ method: 'GET', path: '/integrations/audience/subscriber-info', service: 'integrations', access: 'member' }),
  pending({ method: 'GET', path: '/integrations/audience/sync-choices', service: 'integrations', access: 'member' }),
  pending({ method: 'GET', path: '/integrations/crm/tags', service: 'integrations', access: 'member' }),
  pending({ method: 'GET', path: '/integrations/crm/user/tags', service: 'integrations', access: 'member' }),
  pending({ method: 'GET', path: '/integrations/listmgr/get-lists', service: 'integrations', access: 'guestWithResource' }),
  pending({ method: 'GET', path: '/integrations/listmgr/interests', service: 'integrations', access: 'member' }),
  route({
    method: 'GET',
    path: '/integrations/resource-settings',
    service: 'integrations',
    access: 'guest',
    handler: embedded.getResourceSettings,
  }),
  route({
    method: 'GET',
    path: '/integrations/resource/captcha-settings',
    service: 'integrations',
    access: 'guestWithResource',
    handler: embedded.getCaptchaSettings,
  }),
  route({
    method: 'GET',
    path: '/integrations/templates/{name}',
    service: 'integrations',
    access: 'guestWithResource',
    request: embedded.templateRequest,
    handler: embedded.getTemplate,
  }),
  pending({ method: 'POST', path: '/integrations/audience/add-tags', service: 'integrations', access: 'member' }),
  pending({ method: 'POST', path: '/integrations/audience/subscribe', service: 'integrations', access: 'member' }),
  pending({ method: 'POST', path: '/integrations/audience/unsubscribe', service: 'integrations', access: 'member' }),
  pending({ method: 'POST', path: '/integrations/listmgr/subscribe', service: 'integrations', access: 'member' }),
  pending({ method: 'POST', path: '/integrations/listmgr/unsubscribe', service: 'integrations', access: 'member' }),
  pending({ method: 'PUT', path: '/integrations/crm/user/tags', service: 'integrations', access: 'member' }),
  route({
    method: 'POST',
    path: '/user/event',
    service: 'integrations',
    access: 'guestWithResource',
    request: publicEvents.eventRequest,
    handler: publicEvents.submitEvent,
  }),
];
