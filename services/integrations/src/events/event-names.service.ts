import { TtlCache } from '@masthead/core/cache';
import type { EventPublisher } from '@masthead/core/events';
import type { EventNameRepository } from './event-name.repository.js';
import type { EventNameRecord } from './event-name.schema.js';
import { invalidEventNameFormat } from './event.errors.js';

/** The name every existing client sends on each page load: public from the first start. */
export const PAGE_VIEW = 'page_view';

const EVENT_NAME = /^[a-z0-9_.:-]{1,64}$/;

interface Deps {
  names: EventNameRepository;
  events: EventPublisher;
  cacheTtlMs: number;
}

/** The global list of event names and the cached set of public ones (see CONTEXT.md). */
export class EventNameService {
  private readonly cache: TtlCache<'public', ReadonlySet<string>>;

  constructor(private readonly deps: Deps) {
    this.cache = new TtlCache(deps.cacheTtlMs);
  }

  /** At boot: `page_view` exists and is public unless an operator made it private. */
  async seed(): Promise<void> {
    await this.deps.names.seed(PAGE_VIEW, 'A page load; embedded clients send one on every page with the page as value');
  }

  /** The public names; rejects when the list cannot be read. */
  publicNames(): Promise<ReadonlySet<string>> {
    return this.cache.getOrLoad(
      'public',
      async () => new Set((await this.deps.names.list()).filter((row) => !row.private).map((row) => row._id)),
    );
  }

  /** Adds or changes a name; every process drops its cached list (`event_names_updated`). */
  async set(rawName: string, isPrivate: boolean, description: string): Promise<EventNameRecord> {
    const name = rawName.trim().toLowerCase();
    if (!EVENT_NAME.test(name)) throw invalidEventNameFormat();
    const saved = await this.deps.names.save(name, isPrivate, description.trim());
    this.forget();
    await this.deps.events.publish({ name: 'event_names_updated', payload: { name } });
    return saved;
  }

  list(): Promise<EventNameRecord[]> {
    return this.deps.names.list();
  }

  forget(): void {
    this.cache.clear();
  }
}
