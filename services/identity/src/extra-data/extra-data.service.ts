import type { EventPublisher } from '@masthead/core/events';
import { isDependencyFailure, isServiceError } from '@masthead/core/errors';
import type { Logger } from '@masthead/core/logging';
import type { ExtraDataRow } from '@masthead/proto/identity/extra_data';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { FieldWrite } from './extra-data.command.js';
import { prepareFieldUpdated, publishFieldDeleted } from './extra-data.events.js';
import type { ExtraDataRepository, ExtraDataScope, FieldKey } from './extra-data.repository.js';
import { toExtraDataRow } from './extra-data.projection.js';
import { extraDataDeleteFailed, extraDataReadFailed, extraDataUpdateFailed, noRelationship } from './extra-data.errors.js';

interface ExtraDataDeps {
  extraData: ExtraDataRepository;
  relationships: RelationshipRepository;
  events: EventPublisher;
  logger: Logger;
}

/** The operation's documented storage failure (document 2, section A), all 409. */
const FAILURES = { read: extraDataReadFailed, update: extraDataUpdateFailed, delete: extraDataDeleteFailed } as const;

/**
 * Reads and writes a member's extra data in one resource. Writes run one field after another
 * with an event each; like the original they are not atomic as a whole, so a failure part-way
 * leaves the fields before it written (and announced).
 */
export class ExtraDataService {
  constructor(private readonly deps: ExtraDataDeps) {}

  async list(scope: ExtraDataScope, groupKey?: string): Promise<ExtraDataRow[]> {
    // Both reads at once: the rows are answered only when the member check passes.
    const [, rows] = await Promise.all([this.assertMember(scope), this.guarded('read', scope, () => this.rows(scope, groupKey))]);
    return rows;
  }

  /**
   * Writes the fields in order (a repeated field: the last value wins), then lists the rows of
   * `groupKey`, or of every group.
   */
  async put(scope: ExtraDataScope, writes: FieldWrite[], groupKey?: string): Promise<ExtraDataRow[]> {
    await this.assertMember(scope);
    return this.guarded('update', scope, async () => {
      for (const write of writes) {
        const { prepared } = await this.deps.extraData.upsert(scope, write, write.value, (record, created, witness) =>
          prepareFieldUpdated(this.deps.events, record, created, witness),
        );
        await prepared.commit();
      }
      // Reading back belongs to the write: its failure is the write's documented error too.
      return this.rows(scope, groupKey);
    });
  }

  /** Deletes the fields in order; a field that is not there is no error and has no event. */
  async remove(scope: ExtraDataScope, fields: FieldKey[]): Promise<void> {
    await this.assertMember(scope);
    await this.guarded('delete', scope, async () => {
      for (const field of fields) {
        const removed = await this.deps.extraData.remove(scope, field);
        if (removed) await publishFieldDeleted(this.deps.events, removed);
      }
    });
  }

  /** 409 user_not_exists unless the member has a relationship with the resource (section A). */
  private async assertMember({ resourceId, userId }: ExtraDataScope): Promise<void> {
    const relationship = await this.deps.relationships.find(resourceId, userId);
    if (!relationship || relationship.status === 'removed') {
      throw noRelationship();
    }
  }

  /** Wire rows, projected here so that a row that cannot be read is the operation's error. */
  private async rows(scope: ExtraDataScope, groupKey?: string): Promise<ExtraDataRow[]> {
    return (await this.deps.extraData.list(scope, groupKey)).map(toExtraDataRow);
  }

  /** Storage failures become the operation's documented error; the cause is only logged. */
  private async guarded<T>(kind: keyof typeof FAILURES, scope: ExtraDataScope, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      // An unreachable database is the transport's 503, not this operation's error (docs/adr/0181).
      if (isServiceError(error) || isDependencyFailure(error)) throw error;
      this.deps.logger.error({ err: error, resource_id: scope.resourceId, user_id: scope.userId }, `extra data ${kind} failed`);
      throw FAILURES[kind]();
    }
  }
}
