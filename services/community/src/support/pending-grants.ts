import type { Logger } from '@masthead/core/logging';

/** Something whose claims may wait for their grant: invitation activations, sponsorship seats. */
interface PendingGrants {
  finishPending(claimedBefore: Date, limit: number): Promise<number>;
}

interface Deps {
  grants: PendingGrants[];
  /** How long a claim may be granting before the pass takes it over (GRANT_LEASE_MS): longer than any request. */
  leaseMs: number;
  /** Claims one pass takes at most per kind (GRANT_PASS_BATCH). */
  batch: number;
  logger: Logger;
  now?: () => Date;
}

/**
 * The pending-grant pass (docs/adr/0233): claims whose membership grant ended without a verdict
 * (a deadline, an outage, a crash) are finished — the grant is idempotent — or given back when
 * catalog refuses it for good, so that no seat stays without its membership. A timer on every
 * replica, outside any call; replicas may race, and each claim's one outcome decides.
 */
export class PendingGrantPass {
  private running: Promise<number> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: Deps) {}

  /** One pass (one at a time per process); answers how many grants it finished. */
  run(): Promise<number> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  start(intervalMs: number): void {
    if (intervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.run().catch((error: unknown) => this.deps.logger.warn({ err: error }, 'pending-grant pass failed'));
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async pass(): Promise<number> {
    const claimedBefore = new Date((this.deps.now?.() ?? new Date()).getTime() - this.deps.leaseMs);
    let finished = 0;
    for (const grants of this.deps.grants) finished += await grants.finishPending(claimedBefore, this.deps.batch);
    return finished;
  }
}
