import { describe, expect, it } from 'vitest';
import { isAllowed, type Role } from '../src/auth/roles.js';

const ROLES: Role[] = ['guest', 'user', 'service_account', 'admin', 'partner', 'root'];

describe('role ACL (document 1, Authentication rule 1)', () => {
  const allowedOn = (route: Role[]) => ROLES.filter((role) => isAllowed(role, route));

  it('opens guest routes to everyone', () => {
    expect(allowedOn(['guest'])).toEqual(ROLES);
  });

  it('opens user routes to people, not to service accounts or guests', () => {
    expect(allowedOn(['user'])).toEqual(['user', 'admin', 'partner', 'root']);
  });

  it('lets partner inherit admin and root bypass', () => {
    expect(allowedOn(['admin'])).toEqual(['admin', 'partner', 'root']);
  });

  it('opens service-account routes to service accounts and root only', () => {
    expect(allowedOn(['service_account'])).toEqual(['service_account', 'root']);
  });
});
