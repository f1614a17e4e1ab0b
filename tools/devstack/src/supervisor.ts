import type { ExitStatus, ManagedProcess } from '@masthead/local-infra';

/**
 * Stop order: one-off tasks (the admin CLI) and the gateway first (no new requests), then the
 * services, then what they use. Only a task is expected to exit on its own.
 */
export type Tier = 'task' | 'gateway' | 'service' | 'infra';
const STOP_ORDER: readonly Tier[][] = [['task', 'gateway'], ['service'], ['infra']];
// Per stage; three stages stay within the 15 s the whole shutdown may take (SIGKILL is immediate).
const STAGE_STOP_TIMEOUT_MS = 4_000;

export interface SupervisorEvents {
  /** A process exited while the stack was not stopping. */
  onUnexpectedExit(process: ManagedProcess, status: ExitStatus): void;
}

/** Owns every process of the stack and stops them by PID, tier by tier. */
export class Supervisor {
  private readonly processes = new Map<Tier, ManagedProcess[]>();
  private stopping: Promise<void> | undefined;

  constructor(private readonly events: SupervisorEvents) {}

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  /** Tracks `process`; one that arrives after stop() began is stopped at once. */
  add(tier: Tier, process: ManagedProcess): void {
    if (this.stopping) {
      void process.stop(STAGE_STOP_TIMEOUT_MS);
      return;
    }
    this.processes.set(tier, [...(this.processes.get(tier) ?? []), process]);
    void process.exited.then((status) => {
      if (tier !== 'task' && !this.stopping) this.events.onUnexpectedExit(process, status);
    });
  }

  /** Stops everything in tier order; calling it again returns the same promise. Never throws. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const tiers of STOP_ORDER) {
        const stage = tiers.flatMap((tier) => this.processes.get(tier) ?? []);
        await Promise.all(stage.map((process) => process.stop(STAGE_STOP_TIMEOUT_MS)));
      }
    })();
    return this.stopping;
  }
}
