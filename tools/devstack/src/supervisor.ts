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

/** Owns every process of the stack and stops them by PID, stage by stage. */
export class Supervisor {
  private readonly processes = new Map<Tier, ManagedProcess[]>();
  private readonly pending = new Set<Promise<unknown>>();
  private stopping: Promise<void> | undefined;

  constructor(private readonly events: SupervisorEvents) {}

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  /**
   * Adopts the process that `starting` yields. stop() waits for starts in progress, so a signal
   * that arrives while a server is still starting cannot leave it running.
   */
  track<T>(tier: Tier, starting: Promise<T>, processOf: (started: T) => ManagedProcess | undefined): Promise<T> {
    const adopted = starting.then((started) => {
      const process = processOf(started);
      if (process) this.add(tier, process);
      return started;
    });
    this.pending.add(adopted);
    const forget = (): void => void this.pending.delete(adopted);
    adopted.then(forget, forget);
    return adopted;
  }

  private add(tier: Tier, process: ManagedProcess): void {
    // Its stage may have passed already; stop() sends SIGTERM synchronously, before any exit.
    if (this.stopping) void process.stop(STAGE_STOP_TIMEOUT_MS);
    this.processes.set(tier, [...(this.processes.get(tier) ?? []), process]);
    void process.exited.then((status) => {
      if (tier !== 'task' && !this.stopping) this.events.onUnexpectedExit(process, status);
    });
  }

  /** Stops everything in stage order; calling it again returns the same promise. Never throws. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await Promise.allSettled([...this.pending]);
      for (const tiers of STOP_ORDER) {
        const stage = tiers.flatMap((tier) => this.processes.get(tier) ?? []);
        await Promise.all(stage.map((process) => process.stop(STAGE_STOP_TIMEOUT_MS)));
      }
    })();
    return this.stopping;
  }
}
