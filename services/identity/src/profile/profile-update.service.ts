import { fieldError, type FieldErrors, userNotExist } from '@masthead/core/errors';
import { markedBy, type EventPublisher, type PreparedEvent } from '@masthead/core/events';
import type { UpdateProfileResponse } from '@masthead/proto/identity/profile';
import { readMember } from '../credentials/member-read.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { AccessAnnouncer } from '../sessions/access-announcer.js';
import { toUserMessage } from '../users/user.projection.js';
import type { NewUser, UserRepository } from '../users/user.repository.js';
import type { LanguageLookup } from './language-lookup.js';
import { changedOptIns } from './marketing-opt-ins.js';
import type { NickNameRepository } from './nick-name.repository.js';
import { parseBody, parseProfileChanges, type ProfileChanges } from './profile-changes.js';
import type { TagRepository } from './tag.repository.js';
import { nickNameKey } from './text-rules.js';

interface ProfileUpdateDeps {
  users: UserRepository;
  relationships: RelationshipRepository;
  nickNames: NickNameRepository;
  tags: TagRepository;
  languages: LanguageLookup;
  events: EventPublisher;
  /** The projection changed: gateways drop their cached session checks of the member (ADR 0042). */
  access: AccessAnnouncer;
}

/** Event names of PUT /user (ADR 0009, 0061). */
export const PROFILE_UPDATED = 'user_profile_updated';
export const MARKETING_OPT_INS_CHANGED = 'user_marketing_opt_ins_changed';

const nickNameTaken = 'is taken by another member';
/**
 * PUT /user (document 1, section C). The original is not atomic; here every rule, lookups
 * included, is checked before the first write, so a refused request changes nothing. The writes
 * then go nick-name claim → user → relationship extra → tags (docs/adr/0060).
 */
export class ProfileUpdateService {
  constructor(private readonly deps: ProfileUpdateDeps) {}

  async update(userId: number, resourceId: number, changesJson: string): Promise<UpdateProfileResponse> {
    const changes = parseProfileChanges(parseBody(changesJson));
    const { nickNames, relationships } = this.deps;
    // The relationship gives the extra before the change and, when the extra is left alone, the answer's.
    const { user, relationship: before } = await readMember(this.deps, userId, resourceId);
    if (!user) throw userNotExist();
    const languageId = await this.checkLookups(changes, userId);

    const newKey = typeof changes.nickName === 'string' ? nickNameKey(changes.nickName) : null;
    const oldKey = user.nick_name ? nickNameKey(user.nick_name) : null;
    // Lost to a parallel request since the check: still nothing written.
    if (newKey && newKey !== oldKey && !(await nickNames.claim(newKey, userId))) throw fieldError({ nick_name: nickNameTaken });

    // The events are prepared before the user row that witnesses them is written (docs/adr/0180):
    // a crash after that write still publishes them, one before it does not.
    const prepared = await this.prepare(userId, resourceId, changes, before?.extra ?? {});
    const updated = await this.deps.users.update(userId, userChangesOf(changes, languageId), markedBy(prepared, user));
    if (oldKey && changes.nickName !== undefined && newKey !== oldKey) await nickNames.release(oldKey, userId);

    if (changes.extra) await relationships.mergeExtra(resourceId, userId, changes.extra);
    if (changes.tags) await this.deps.tags.replace(userId, resourceId, changes.tags);

    this.deps.access.memberChanged(userId, null, 'profile_updated');
    for (const event of prepared) await event.commit();
    const relationship = changes.extra ? await relationships.find(resourceId, userId) : before;
    return {
      user: toUserMessage(updated ?? user, relationship?.extra ?? {}),
      tags: changes.tags ?? [],
      tagsReplaced: changes.tags !== undefined,
    };
  }

  /** Language and nick-name rules that need a lookup; returns the language ID to store. */
  private async checkLookups(changes: ProfileChanges, userId: number): Promise<number | undefined> {
    const errors: FieldErrors = {};
    const { languages } = this.deps;
    const [idExists, slugId, holder] = await Promise.all([
      changes.languageId === undefined ? true : languages.exists(changes.languageId),
      changes.languageSlug === undefined ? null : languages.idOfSlug(changes.languageSlug),
      typeof changes.nickName === 'string' ? this.deps.nickNames.holder(nickNameKey(changes.nickName)) : null,
    ]);
    if (!idExists) errors['language_id'] = 'no language has this ID';
    if (changes.languageSlug !== undefined && slugId === null) errors['language_slug'] = 'no language has this slug';
    if (holder !== null && holder !== userId) errors['nick_name'] = nickNameTaken;
    if (Object.keys(errors).length > 0) throw fieldError(errors);
    // language_slug is processed after language_id and overrides it (document 1, section C).
    return slugId ?? changes.languageId;
  }

  /** The update's events: the profile changed, and the marketing opt-ins that it changed. */
  private async prepare(
    userId: number,
    resourceId: number,
    changes: ProfileChanges,
    extraBefore: Record<string, unknown>,
  ): Promise<PreparedEvent[]> {
    const { events, users } = this.deps;
    const witness = users.witness(userId);
    const prepared: PreparedEvent[] = [
      await events.prepare(
        { name: PROFILE_UPDATED, resourceId, payload: { user_id: userId, fields: changedFieldNames(changes) } },
        witness,
      ),
    ];
    const optIns = changes.extra ? changedOptIns(extraBefore, changes.extra) : {};
    if (Object.keys(optIns).length > 0) {
      prepared.push(
        await events.prepare({ name: MARKETING_OPT_INS_CHANGED, resourceId, payload: { user_id: userId, opt_ins: optIns } }, witness),
      );
    }
    return prepared;
  }
}

function userChangesOf(changes: ProfileChanges, languageId: number | undefined): Partial<NewUser> {
  const update: Partial<NewUser> = { ...changes.text };
  if (changes.nickName !== undefined) update.nick_name = changes.nickName;
  if (languageId !== undefined) update.language_id = languageId;
  return update;
}

/** The request's accepted fields, in the table's order, for the event payload. */
function changedFieldNames(changes: ProfileChanges): string[] {
  const names: string[] = [];
  if (changes.nickName !== undefined) names.push('nick_name');
  names.push(...Object.keys(changes.text));
  if (changes.extra) names.push('extra');
  if (changes.languageId !== undefined || changes.languageSlug !== undefined) names.push('language_id');
  if (changes.tags) names.push('tags');
  return names;
}
