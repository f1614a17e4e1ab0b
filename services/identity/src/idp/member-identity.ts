import type { Resource } from '@masthead/proto/accounts';
import type { IdpLinkRepository } from './idp-link.repository.js';
import { requireProviderSettings, type ProviderSettings } from './provider-settings.js';
import { idpNotLinked } from './idp.errors.js';

export interface MemberIdentity {
  settings: ProviderSettings;
  uid: string;
}

/** The provider identity linked to a signed-in member in the resource's provider project. */
export async function memberIdentity(links: IdpLinkRepository, resource: Resource, userId: number): Promise<MemberIdentity> {
  const settings = requireProviderSettings(resource);
  const link = userId > 0 ? await links.findByUser(settings.projectId, userId) : null;
  if (!link) throw idpNotLinked();
  return { settings, uid: link.uid };
}
