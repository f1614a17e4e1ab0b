import type { Logger } from '@masthead/core/logging';
import type { ServiceClients } from '../clients.js';

interface PendingUsage {
  requests: number;
  lastUsedAt: number;
}

/**
 * Counts service-account requests in memory and reports them to accounts in one call per
 * interval, off the request path (document 2, section I: initialization records the request).
 * A failed report is logged and its counts are kept for the next one; memory stays bounded by
 * the number of accounts in use.
 */
export class ServiceAccountUsage {
  private pending = new Map<number, PendingUsage>();
  private flushing: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly serviceAccounts: ServiceClients['serviceAccounts'],
    intervalMs: number,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  record(serviceAccountId: number): void {
    const entry = this.pending.get(serviceAccountId);
    const now = Date.now();
    if (entry) {
      entry.requests += 1;
      entry.lastUsedAt = now;
    } else {
      this.pending.set(serviceAccountId, { requests: 1, lastUsedAt: now });
    }
  }

  /** Reports what is pending; never throws. */
  flush(): Promise<void> {
    this.flushing ??= this.report().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flushing;
    await this.flush();
  }

  private async report(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const usages = [...batch].map(([serviceAccountId, usage]) => ({
      serviceAccountId,
      requests: usage.requests,
      lastUsedAt: new Date(usage.lastUsedAt).toISOString(),
    }));
    try {
      await this.serviceAccounts.recordServiceAccountUsage({ usages });
    } catch (error) {
      this.logger.warn({ err: error, accounts: usages.length }, 'service-account usage report deferred');
      for (const [id, usage] of batch) {
        const newer = this.pending.get(id);
        this.pending.set(id, {
          requests: usage.requests + (newer?.requests ?? 0),
          lastUsedAt: Math.max(usage.lastUsedAt, newer?.lastUsedAt ?? 0),
        });
      }
    }
  }
}
