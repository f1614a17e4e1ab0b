import type { ServiceRuntime } from '@masthead/core/service';
import { extraDataHandlers } from '../grpc/extra-data.handlers.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import { ExtraDataRepository } from './extra-data.repository.js';
import { ExtraDataService } from './extra-data.service.js';

/** The extra-data area (document 2 A); its repository also erases a removed member's rows. */
export async function createExtraDataModule(deps: { runtime: ServiceRuntime; relationships: RelationshipRepository }) {
  const { runtime } = deps;
  const repository = new ExtraDataRepository(runtime.db);
  await repository.ready();
  const service = new ExtraDataService({
    extraData: repository,
    relationships: deps.relationships,
    events: runtime.events,
    logger: runtime.logger,
  });
  return { repository, handlers: extraDataHandlers(service) };
}
