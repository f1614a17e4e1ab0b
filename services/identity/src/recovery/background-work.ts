import type { Logger } from '@masthead/core/logging';

/**
 * Work that runs after the answer was sent. Code requests answer before looking the email up,
 * so that a known and an unknown email take the same time (docs/adr/0055). `drain` lets the
 * service finish what it started before it closes its connections.
 */
export class BackgroundWork {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  run(label: string, task: () => Promise<void>): void {
    const promise: Promise<void> = task()
      .catch((error: unknown) => this.logger.error({ err: error }, `${label} failed`))
      .finally(() => this.running.delete(promise));
    this.running.add(promise);
  }

  async drain(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
