import type { ClientOf } from '@masthead/core/clients';

/** Whether a user is a member of a resource; identity owns relationships. */
export interface MemberDirectory {
  isMember(resourceId: number, userId: number): Promise<boolean>;
}

/** Asks identity's ListUserResources (relationships that are not removed). */
export class IdentityMemberDirectory implements MemberDirectory {
  constructor(private readonly identity: ClientOf<'identity'>) {}

  async isMember(resourceId: number, userId: number): Promise<boolean> {
    const { resourceIds } = await this.identity.listUserResources({ userId }, { idempotent: true });
    return resourceIds.includes(resourceId);
  }
}
