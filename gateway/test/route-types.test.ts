import { describe, expect, it } from 'vitest';
import { type Handler, route } from '../src/routes/define.js';

/**
 * The access class decides the handler's context type. The `@ts-expect-error` lines are the
 * test: `tsconfig.typetest.json` (run by the gateway's typecheck) fails when one of them
 * compiles, i.e. when a class stops proving, or starts proving, what these handlers assume.
 */

const memberHandler: Handler<'member'> = async (context) => ({ body: { user: context.caller.user.id, resource: context.resource.id } });
const guestHandler: Handler<'guest'> = async (context) => ({ body: { resource: context.resource?.id ?? null } });
const accountHandler: Handler<'serviceAccount'> = async (context) => ({ body: { account: context.caller.serviceAccountId } });
const optionalResourceHandler: Handler<'memberOptionalResource'> = async (context) => ({ body: { user: context.caller.user.id } });

// A handler of a class whose user may be absent cannot dereference it.
export const readsGuestUser: Handler<'guestOrMember'> = async (context) => ({
  // @ts-expect-error: guestOrMember admits guests, so `user` may be null
  body: context.caller.user.id,
});

// Nor can a handler of a class whose resource is optional read the resource's ID.
export const readsOptionalResource: Handler<'memberOptionalResource'> = async (context) => ({
  // @ts-expect-error: memberOptionalResource proves a user, not a resource
  body: context.resource.id,
});

describe('route types', () => {
  it('builds rows whose handler fits their access class', () => {
    const row = route({ method: 'GET', path: '/user', service: 'identity', access: 'member', handler: memberHandler });
    expect(row.handler).toBeTypeOf('function');
  });

  it('refuses, at compile time, a handler written for another class', () => {
    const rows = [
      // @ts-expect-error: a guest handler does not fit a member row
      route({ method: 'GET', path: '/a', service: 'identity', access: 'member', handler: guestHandler }),
      // @ts-expect-error: a member handler would read a user a guest row does not prove
      route({ method: 'GET', path: '/b', service: 'identity', access: 'guest', handler: memberHandler }),
      // @ts-expect-error: a service-account handler does not fit a member row
      route({ method: 'GET', path: '/c', service: 'catalog', access: 'member', handler: accountHandler }),
      // @ts-expect-error: a member-with-optional-resource handler does not fit a member row either
      route({ method: 'GET', path: '/d', service: 'identity', access: 'member', handler: optionalResourceHandler }),
    ];
    expect(rows).toHaveLength(4);
  });
});
