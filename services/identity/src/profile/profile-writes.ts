import { resolve } from 'node:path';
import type { ServiceClient } from '@masthead/core/grpc';
import type { ServiceRuntime } from '@masthead/core/service';
import type { LocalizationServiceService } from '@masthead/proto/accounts/localization';
import type { IdentityConfig } from '../config.js';
import type { PasswordHasher } from '../passwords/password-hasher.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { AccessAnnouncer } from '../sessions/access-announcer.js';
import type { SessionRepository } from '../sessions/session.repository.js';
import type { SignInThrottle } from '../throttling/sign-in-throttle.js';
import type { UserRepository } from '../users/user.repository.js';
import { LanguageLookup } from './language-lookup.js';
import { NickNameRepository } from './nick-name.repository.js';
import { LocalPhotoStore } from './photo/photo-store.js';
import { PhotoUploadService } from './photo/photo-upload.service.js';
import { ProfileUpdateService } from './profile-update.service.js';
import { ResourcePasswordService } from './resource-password.service.js';
import { TagRepository } from './tag.repository.js';

interface ProfileWritesDeps {
  runtime: ServiceRuntime;
  config: IdentityConfig;
  localization: ServiceClient<typeof LocalizationServiceService>;
  users: UserRepository;
  relationships: RelationshipRepository;
  sessionRepository: SessionRepository;
  hasher: PasswordHasher;
  throttle: SignInThrottle;
  access: AccessAnnouncer;
}

/** The profile area's part of the composition root (app.ts): its repositories and services. */
export async function createProfileWrites(deps: ProfileWritesDeps) {
  const { runtime, users, relationships, access } = deps;
  const tags = new TagRepository(runtime.db);
  await tags.ready();
  const events = runtime.events;
  return {
    tags,
    updates: new ProfileUpdateService({
      users,
      relationships,
      nickNames: new NickNameRepository(runtime.db),
      tags,
      languages: new LanguageLookup(deps.localization),
      events,
      access,
    }),
    passwords: new ResourcePasswordService({
      users,
      relationships,
      sessions: deps.sessionRepository,
      hasher: deps.hasher,
      throttle: deps.throttle,
      events,
      access,
    }),
    photos: new PhotoUploadService({
      users,
      relationships,
      store: new LocalPhotoStore(resolve(deps.config.PHOTO_STORAGE_DIR), deps.config.PHOTO_PUBLIC_URL),
      events,
      access,
      logger: runtime.logger,
    }),
  };
}
