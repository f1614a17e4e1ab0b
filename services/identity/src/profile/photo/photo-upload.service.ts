import { userNotExist } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { User } from '@masthead/proto/identity';
import { readMember } from '../../credentials/member-read.js';
import type { RelationshipRepository } from '../../relationships/relationship.repository.js';
import type { AccessAnnouncer } from '../../sessions/access-announcer.js';
import { toUserMessage } from '../../users/user.projection.js';
import type { UserRepository } from '../../users/user.repository.js';
import { PROFILE_UPDATED } from '../profile-update.service.js';
import { checkPhoto } from './photo-check.js';
import type { PhotoStore } from './photo-store.js';

interface PhotoUploadDeps {
  users: UserRepository;
  relationships: RelationshipRepository;
  store: PhotoStore;
  events: EventPublisher;
  access: AccessAnnouncer;
  logger: Logger;
}

/** POST /user/photo: checks the image, stores it, points the user at it, drops the old one. */
export class PhotoUploadService {
  constructor(private readonly deps: PhotoUploadDeps) {}

  async upload(userId: number, resourceId: number, content: Uint8Array): Promise<User> {
    const photo = await checkPhoto(content);
    const user = await this.deps.users.findById(userId);
    if (!user) throw userNotExist();
    const url = await this.deps.store.save(userId, content, photo.extension);
    await this.deps.users.update(userId, { photo: url });
    if (user.photo) {
      // The new photo is in place; a leftover old file is only wasted space.
      await this.deps.store
        .remove(user.photo)
        .catch((error: unknown) => this.deps.logger.warn({ err: error, user_id: userId }, 'old photo not removed'));
    }
    this.deps.access.memberChanged(userId, null, 'profile_updated');
    await this.deps.events.publish({ name: PROFILE_UPDATED, resourceId, payload: { user_id: userId, fields: ['photo'] } });
    const { user: updated, relationship } = await readMember(this.deps, userId, resourceId);
    return toUserMessage(updated ?? { ...user, photo: url }, relationship?.extra ?? {});
  }
}
