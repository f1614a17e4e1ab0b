import type { AsyncImplementation } from '@masthead/core/grpc';
import type { ProfileServiceService } from '@masthead/proto/identity/profile';
import type { PhotoUploadService } from '../profile/photo/photo-upload.service.js';
import type { ProfileUpdateService } from '../profile/profile-update.service.js';
import type { ResourcePasswordService } from '../profile/resource-password.service.js';
import type { TagRepository } from '../profile/tag.repository.js';

interface ProfileHandlerDeps {
  updates: ProfileUpdateService;
  passwords: ResourcePasswordService;
  photos: PhotoUploadService;
  tags: TagRepository;
}

/** masthead.identity.v1.ProfileService: a member's own profile writes (document 1, section C). */
export function profileHandlers({
  updates,
  passwords,
  photos,
  tags,
}: ProfileHandlerDeps): AsyncImplementation<typeof ProfileServiceService> {
  return {
    updateProfile: ({ userId, resourceId, changesJson }) => updates.update(userId, resourceId, changesJson),
    listTags: async ({ userId, resourceId }) => ({ tags: await tags.list(userId, resourceId) }),
    setPassword: async ({ userId, resourceId, password }) => {
      await passwords.setInitial(userId, resourceId, password);
      return { revokedSessions: 0 };
    },
    changePassword: async ({ userId, resourceId, sessionId, currentPassword, password }) => ({
      revokedSessions: await passwords.change({ userId, resourceId, sessionId, currentPassword, password }),
    }),
    hasPassword: async ({ userId, resourceId }) => ({ hasPassword: await passwords.hasPassword(userId, resourceId) }),
    uploadPhoto: ({ userId, resourceId, content }) => photos.upload(userId, resourceId, content),
  };
}
