import type { Logger } from '@masthead/core/logging';
import type { WebhookDispatcher } from './dispatcher.js';
import type { WebhookIngest } from './ingest.js';

/** How long a failed start of the stream consumer waits before the next try. */
const START_RETRY_MS = 2_000;
/** How long stopping waits for requests in flight (the process has 12 s to stop in all). */
const STOP_GRACE_MS = 3_000;

/**
 * Runs webhook delivery in the background of the integrations process: the ingest from the
 * event stream, and the dispatcher every `pollMs` (and at once when the ingest recorded
 * something). Nothing here is awaited by a request.
 */
export class WebhookDeliveryRunner {
  private timer: NodeJS.Timeout | null = null;
  private starting: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly ingest: WebhookIngest,
    private readonly dispatcher: WebhookDispatcher,
    private readonly pollMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.starting = this.startIngest();
    this.timer = setInterval(() => this.nudge(), this.pollMs);
    this.timer.unref();
  }

  /** Delivers what is due now (without waiting for the next poll). */
  nudge(): void {
    if (this.stopped) return;
    this.dispatcher.deliverDue().catch((error: unknown) => this.logger.warn({ err: error }, 'webhook dispatch pass failed'));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.starting;
    await this.ingest.stop();
    // A request in flight may finish within the grace; one cut off is sent again later (its lease).
    await Promise.race([this.dispatcher.idle(), new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref())]);
  }

  /** The stream may not be ready at boot (JetStream starting): keep trying until it is, or until stopped. */
  private async startIngest(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.ingest.start();
        return;
      } catch (error) {
        this.logger.warn({ err: error }, 'webhook stream consumer not started yet; retrying');
        await new Promise((resolve) => setTimeout(resolve, START_RETRY_MS));
      }
    }
  }
}
