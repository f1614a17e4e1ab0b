import type { MemberScope } from '@masthead/proto/billing';
import { memberScopeMissing } from './member-scope.errors.js';
import { billingSettings, type BillingSettings } from './resource-settings.js';

/** A member in a resource, with the settings billing reads (see resource-settings.ts). */
export interface Member {
  resourceId: number;
  userId: number;
  email: string;
  name: string;
  /** The resource's public key and title (invoices; `item_resource` in checkout). */
  resourceKey: string;
  resourceTitle: string;
  settings: BillingSettings;
}

/** The wire scope → Member; a call without member or resource is a caller bug (400). */
export function memberOf(scope: MemberScope | undefined): Member {
  if (!scope || scope.resourceId <= 0 || scope.userId <= 0) throw memberScopeMissing();
  return {
    resourceId: scope.resourceId,
    userId: scope.userId,
    email: scope.email,
    name: scope.name,
    resourceKey: scope.resourceKey,
    resourceTitle: scope.resourceTitle,
    settings: billingSettings(scope.resourceSettings),
  };
}
