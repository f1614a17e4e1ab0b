import type { AsyncImplementation } from '@masthead/core/grpc';
import type { PublicEventsServiceService } from '@masthead/proto/integrations/public_events';
import type { EventNameService } from '../events/event-names.service.js';
import type { EventSubmissionService } from '../events/event-submission.service.js';
import { toEventName } from './platform.wire.js';

export function publicEventsHandlers(
  submissions: EventSubmissionService,
  names: EventNameService,
): AsyncImplementation<typeof PublicEventsServiceService> {
  return {
    submitEvent: async (request) => ({ eventId: await submissions.submit(request) }),
    setEventName: async ({ name, private: isPrivate, description }) => toEventName(await names.set(name, isPrivate, description)),
    listEventNames: async () => ({ items: (await names.list()).map(toEventName) }),
  };
}
