import type { EventPublisher } from '@masthead/core/events';
import type { ServiceAccountUser } from '@masthead/proto/identity';
import type { ResourceService } from '../resources/resource.service.js';
import type { ServiceAccountUserDirectory } from './service-account-users.js';
import type { CreateServiceAccountCommand } from './service-account.command.js';
import { notAServiceAccountUser, serviceAccountNotFound, serviceAccountRevoked, tooManyUsages } from './service-account.errors.js';
import { hashServiceKey, isWellFormedServiceKey, newServiceKey } from './service-account.keys.js';
import type { ServiceAccountRepository, UsageIncrement } from './service-account.repository.js';
import type { ServiceAccountRecord, ServiceAccountState } from './service-account.schema.js';

interface ServiceAccountServiceDeps {
  accounts: ServiceAccountRepository;
  resources: ResourceService;
  users: ServiceAccountUserDirectory;
  events: EventPublisher;
}

export type ServiceKeyState = 'unknown' | 'active' | 'suspended' | 'revoked';

/** What the gateway needs to decide on a `service-api-key`, from one call. */
export interface ServiceKeyResolution {
  state: ServiceKeyState;
  account: ServiceAccountRecord | null;
  /** Read only for active accounts; null when identity has no such user. */
  user: ServiceAccountUser | null;
}

/** Thrown when an ID names no service account. */
/** Largest batch of usage entries one report may carry (one gateway's accounts per interval). */
const MAX_USAGE_BATCH = 10_000;

export class ServiceAccountService {
  constructor(private readonly deps: ServiceAccountServiceDeps) {}

  ready(): Promise<void> {
    return this.deps.accounts.ready();
  }

  /**
   * Creates an account with a fresh key and returns the key, the only time it exists outside
   * the caller. The user is created in identity unless an existing service-account user is named.
   */
  async create(command: CreateServiceAccountCommand, requestId: string): Promise<{ account: ServiceAccountRecord; key: string }> {
    const resource = await this.deps.resources.get(command.resourceId);
    let userId: number;
    if (command.userId !== undefined) {
      const user = await this.deps.users.get(command.userId, resource._id, requestId);
      if (!user || user.role !== 'service_account') {
        throw notAServiceAccountUser();
      }
      userId = command.userId;
    } else {
      userId = (await this.deps.users.create(resource._id, command.title, requestId)).id;
    }
    const key = newServiceKey();
    const account = await this.deps.accounts.insert({
      resource_id: resource._id,
      user_id: userId,
      title: command.title,
      status: 'active',
      full_access: command.fullAccess,
      grants: command.grants,
      key_hash: hashServiceKey(key),
    });
    await this.published(account);
    return { account, key };
  }

  listForResource(resourceId: number): Promise<ServiceAccountRecord[]> {
    return this.deps.accounts.listForResource(resourceId);
  }

  /** Revokes the key for good; revoking twice answers the revoked account. */
  async revoke(id: number): Promise<ServiceAccountRecord> {
    const revoked = await this.deps.accounts.revoke(id);
    if (revoked) return this.published(revoked);
    const existing = await this.deps.accounts.findById(id);
    if (!existing) throw serviceAccountNotFound();
    return existing;
  }

  /** Suspends or reactivates; 409 service_account_revoked once revoked. */
  async setStatus(id: number, status: ServiceAccountState): Promise<ServiceAccountRecord> {
    const updated = await this.deps.accounts.setStatus(id, status);
    if (updated) return this.published(updated);
    if (!(await this.deps.accounts.findById(id))) throw serviceAccountNotFound();
    throw serviceAccountRevoked();
  }

  /**
   * The state of a key for the gateway. Unknown, malformed, revoked and suspended keys cost no
   * identity call; an active account's user is read from identity in the same call.
   */
  async resolve(key: string, requestId: string): Promise<ServiceKeyResolution> {
    const account = isWellFormedServiceKey(key) ? await this.deps.accounts.findByKeyHash(hashServiceKey(key)) : null;
    if (!account) return { state: 'unknown', account: null, user: null };
    if (account.revoked_at) return { state: 'revoked', account, user: null };
    if (account.status !== 'active') return { state: 'suspended', account, user: null };
    return { state: 'active', account, user: await this.deps.users.get(account.user_id, account.resource_id, requestId) };
  }

  /** Adds the gateway's batched usage; entries that are not positive counts are ignored. */
  async recordUsage(increments: UsageIncrement[]): Promise<void> {
    if (increments.length > MAX_USAGE_BATCH) throw tooManyUsages(MAX_USAGE_BATCH);
    const valid = increments.filter(
      (entry) =>
        Number.isSafeInteger(entry.serviceAccountId) &&
        entry.serviceAccountId > 0 &&
        Number.isSafeInteger(entry.requests) &&
        entry.requests > 0 &&
        !Number.isNaN(entry.lastUsedAt.getTime()),
    );
    if (valid.length > 0) await this.deps.accounts.addUsage(valid);
  }

  /** Gateways cache key resolutions; this event tells them to drop this account's. */
  private async published(account: ServiceAccountRecord): Promise<ServiceAccountRecord> {
    await this.deps.events.publish({
      name: 'service_account_updated',
      resourceId: account.resource_id,
      payload: { service_account_id: account._id, status: account.status, revoked: account.revoked_at !== null },
    });
    return account;
  }
}
