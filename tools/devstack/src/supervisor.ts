import type { ExitStatus, ManagedProcess } from '@masthead/local-infra';

/**
 * Stop order: one-off tasks (the admin CLI) and the gateway first (no new requests), then the
 * services, then what they use. Only a task is expected to exit on its own.
 */
export type Tier = 'task' | 'gateway' | 'service' | 'infra';
const STOP_ORDER: readonly Tier[][] = [['task', 'gateway'], ['service'], ['infra']];
// Per stage; three stages stay within the 15 s the whole shutdown may take (SIGKILL is immediate).
const STAGE_STOP_TIMEOUT_MS = 4_000;

/** How a kept process comes back after it died: exponential back-off, reset by a stable run. */
export interface RestartPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  /** A process that ran this long before it died starts again after `initialDelayMs`. */
  stableAfterMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { initialDelayMs: 500, maxDelayMs: 30_000, stableAfterMs: 30_000 };

export interface SupervisorEvents {
  /** A process exited while the stack was not stopping. */
  onUnexpectedExit(process: ManagedProcess, status: ExitStatus): void;
  /** A kept process will be started again in `delayMs` (the `attempt`-th restart in a row). */
  onRestartScheduled?(name: string, attempt: number, delayMs: number): void;
  /** A kept process runs again. */
  onRestarted?(process: ManagedProcess, attempt: number): void;
  /** A restart failed to start; another is scheduled. */
  onRestartFailed?(name: string, error: unknown): void;
}

export interface SupervisorOptions {
  /** Restart kept processes that die (`npm start`). Without it an exit is only reported (bench). */
  restart?: RestartPolicy;
}

/** A process the supervisor keeps running: how to start it again, and its current incarnation. */
interface Unit {
  name: string;
  tier: Tier;
  start: () => Promise<ManagedProcess>;
  current: ManagedProcess | undefined;
  startedAt: number;
  /** Restarts in a row without a stable run between them. */
  attempt: number;
  timer: NodeJS.Timeout | undefined;
  /** Held units are not restarted until released (a fault drill keeps a server down on purpose). */
  held: boolean;
  /** Stopping what is left of the dead incarnation; a restart waits for it. */
  cleanup: Promise<void>;
}

/**
 * Owns every process of the stack and stops them by PID, stage by stage. Kept processes
 * (`keep`) that die are started again with back-off when the supervisor has a restart policy;
 * everything stops only when `stop()` is called (the stack's own SIGTERM or Ctrl-C).
 */
export class Supervisor {
  private readonly fixed = new Map<Tier, ManagedProcess[]>();
  private readonly units = new Map<string, Unit>();
  private readonly pending = new Set<Promise<unknown>>();
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly events: SupervisorEvents,
    private readonly options: SupervisorOptions = {},
  ) {}

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  /**
   * Adopts the process that `starting` yields, for this run only (never restarted). stop() waits
   * for starts in progress, so a signal that arrives while a server is still starting cannot
   * leave it running.
   */
  track<T>(tier: Tier, starting: Promise<T>, processOf: (started: T) => ManagedProcess | undefined): Promise<T> {
    return this.pend(
      starting.then((started) => {
        const process = processOf(started);
        if (process) this.adoptFixed(tier, process);
        return started;
      }),
    );
  }

  /**
   * Starts a process that is to keep running: when it dies it is started again by `start` (which
   * must reuse its ports, so that its clients find it again), after a back-off. The first start's
   * failure is thrown; later ones are reported and retried.
   */
  async keep(tier: Tier, name: string, start: () => Promise<ManagedProcess>): Promise<ManagedProcess> {
    if (this.units.has(name)) throw new Error(`${name} is kept already`);
    const unit: Unit = {
      name,
      tier,
      start,
      current: undefined,
      startedAt: 0,
      attempt: 0,
      timer: undefined,
      held: false,
      cleanup: Promise.resolve(),
    };
    this.units.set(name, unit);
    const process = await this.pend(start());
    this.adoptUnit(unit, process);
    return process;
  }

  /** The running incarnation of a kept process. */
  processOf(name: string): ManagedProcess | undefined {
    return this.units.get(name)?.current;
  }

  /** Until `release`, a kept process that dies stays down (fault drills). */
  hold(name: string): void {
    const unit = this.unit(name);
    unit.held = true;
    clearTimeout(unit.timer);
    unit.timer = undefined;
  }

  /** Ends a hold; a process that is down starts again at once. */
  release(name: string): void {
    const unit = this.unit(name);
    unit.held = false;
    if (!unit.current && !unit.timer) this.schedule(unit, 0);
  }

  /** Stops everything in stage order; calling it again returns the same promise. Never throws. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const unit of this.units.values()) clearTimeout(unit.timer);
      await Promise.allSettled([...this.pending]);
      for (const tiers of STOP_ORDER) {
        const stage = tiers.flatMap((tier) => [
          ...(this.fixed.get(tier) ?? []),
          ...[...this.units.values()].filter((unit) => unit.tier === tier && unit.current).map((unit) => unit.current!),
        ]);
        await Promise.all(stage.map((process) => process.stop(STAGE_STOP_TIMEOUT_MS)));
      }
    })();
    return this.stopping;
  }

  private unit(name: string): Unit {
    const unit = this.units.get(name);
    if (!unit) throw new Error(`no kept process named ${name}`);
    return unit;
  }

  private pend<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work);
    const forget = (): void => void this.pending.delete(work);
    work.then(forget, forget);
    return work;
  }

  private adoptFixed(tier: Tier, process: ManagedProcess): void {
    // Its stage may have passed already; stop() sends SIGTERM synchronously, before any exit.
    if (this.stopping) void process.stop(STAGE_STOP_TIMEOUT_MS);
    this.fixed.set(tier, [...(this.fixed.get(tier) ?? []), process]);
    void process.exited.then((status) => {
      if (tier !== 'task' && !this.stopping) this.events.onUnexpectedExit(process, status);
    });
  }

  private adoptUnit(unit: Unit, process: ManagedProcess): void {
    if (this.stopping) void process.stop(STAGE_STOP_TIMEOUT_MS);
    unit.current = process;
    unit.startedAt = Date.now();
    void process.exited.then((status) => {
      if (this.stopping || unit.current !== process) return;
      unit.current = undefined;
      // A part of a composite server may still run (PostgreSQL under a dead FerretDB): stop it first.
      unit.cleanup = process.stop(STAGE_STOP_TIMEOUT_MS);
      this.events.onUnexpectedExit(process, status);
      const policy = this.options.restart;
      if (!policy) return;
      if (Date.now() - unit.startedAt >= policy.stableAfterMs) unit.attempt = 0;
      this.schedule(unit, this.backOff(unit));
    });
  }

  private schedule(unit: Unit, delayMs: number): void {
    if (this.stopping || unit.held) return;
    unit.attempt++;
    this.events.onRestartScheduled?.(unit.name, unit.attempt, delayMs);
    unit.timer = setTimeout(() => {
      unit.timer = undefined;
      if (this.stopping || unit.held) return;
      this.pend(unit.cleanup.then(unit.start)).then(
        (process) => {
          this.adoptUnit(unit, process);
          if (!this.stopping) this.events.onRestarted?.(process, unit.attempt);
        },
        (error: unknown) => {
          this.events.onRestartFailed?.(unit.name, error);
          this.schedule(unit, this.backOff(unit));
        },
      );
    }, delayMs);
  }

  private backOff(unit: Unit): number {
    const policy = this.options.restart ?? DEFAULT_RESTART_POLICY;
    return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** unit.attempt);
  }
}
