import { Agent, request as httpRequest } from 'node:http';

/** One answer, or why there was none. */
export interface Answer {
  status: number;
  body: unknown;
  text: string;
  ms: number;
  /** Set when no answer came: a refused or dropped connection, or the client's own timeout. */
  error?: string;
  /** The gateway that answered (its origin). */
  origin: string;
  /** Set when the request went out again on another connection after a dead one. */
  retried?: boolean;
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  json?: unknown;
}

const IDEMPOTENT = new Set(['GET', 'PUT', 'DELETE']);
const READINESS_INTERVAL_MS = 200;

/**
 * A client of one or more gateways, as a load balancer in front of them would be: it sends to
 * the gateways whose /readyz answers 200 (round robin), and sends an idempotent request again on
 * another connection when its connection died before any answer (ADR 0182). Keep-alive agents.
 */
export class GatewayClient {
  private readonly agents = new Map<string, Agent>();
  private readonly ready = new Map<string, boolean>();
  private next = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly origins: readonly string[],
    private readonly options: { timeoutMs?: number; retryIdempotent?: boolean } = {},
  ) {
    for (const origin of origins) {
      this.agents.set(origin, new Agent({ keepAlive: true, maxSockets: 256 }));
      this.ready.set(origin, true);
    }
  }

  /** Follows each gateway's /readyz until `close()`. */
  watchReadiness(): void {
    const poll = (): void => {
      for (const origin of this.origins) {
        void this.send(origin, { method: 'GET', path: '/readyz' }, 2000).then((answer) => this.ready.set(origin, answer.status === 200));
      }
      this.timer = setTimeout(poll, READINESS_INTERVAL_MS);
    };
    poll();
  }

  close(): void {
    clearTimeout(this.timer);
    for (const agent of this.agents.values()) agent.destroy();
  }

  /** The next ready gateway other than `except`; any gateway when none is ready. */
  private pick(except?: string): string {
    const others = this.origins.filter((origin) => origin !== except);
    const candidates = others.length > 0 ? others : this.origins;
    const ready = candidates.filter((origin) => this.ready.get(origin));
    const pool = ready.length > 0 ? ready : candidates;
    return pool[this.next++ % pool.length]!;
  }

  /**
   * Sends `spec` (its path whole, e.g. /api/v1/plans) to a ready gateway. Without `successBody`
   * a 2xx answer's body is read but neither kept nor parsed: a load run keeps every sample, and
   * the drill's own client shares the cores it measures.
   */
  async api(spec: RequestSpec, { successBody = true }: { successBody?: boolean } = {}): Promise<Answer> {
    const timeoutMs = this.options.timeoutMs ?? 15_000;
    const first = this.pick();
    const answer = await this.send(first, spec, timeoutMs, successBody);
    if (answer.error && answer.error !== 'timeout' && this.options.retryIdempotent && IDEMPOTENT.has(spec.method)) {
      const again = await this.send(this.pick(first), spec, timeoutMs, successBody);
      return { ...again, retried: true, ms: answer.ms + again.ms };
    }
    return answer;
  }

  private send(origin: string, spec: RequestSpec, timeoutMs: number, successBody = true): Promise<Answer> {
    const started = performance.now();
    const body = spec.json === undefined ? undefined : Buffer.from(JSON.stringify(spec.json));
    const url = new URL(spec.path, origin);
    return new Promise<Answer>((resolve) => {
      let settled = false;
      const finish = (answer: Omit<Answer, 'ms' | 'origin'>): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...answer, ms: performance.now() - started, origin });
      };
      const req = httpRequest(
        url,
        {
          method: spec.method,
          agent: this.agents.get(origin),
          headers: { ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}), ...spec.headers },
        },
        (res) => {
          const status = res.statusCode ?? 0;
          res.on('error', (error) => finish({ status: 0, body: undefined, text: '', error: error.message }));
          if (!successBody && status >= 200 && status < 300) {
            res.on('end', () => finish({ status, body: undefined, text: '' })).resume();
            return;
          }
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = undefined;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              parsed = undefined;
            }
            finish({ status, body: parsed, text });
          });
        },
      );
      const timer = setTimeout(() => {
        finish({ status: 0, body: undefined, text: '', error: 'timeout' });
        req.destroy();
      }, timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) =>
        finish({ status: 0, body: undefined, text: '', error: error.code ?? error.message }),
      );
      req.end(body);
    });
  }
}

/** The error envelope of document 1: `{error, error_description, req_guid}` (or field errors). */
export function isEnvelope(body: unknown, code?: string): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const record = body as Record<string, unknown>;
  if (typeof record['req_guid'] !== 'string' || !/^[0-9a-f-]{36}$/.test(record['req_guid'])) return false;
  if (code !== undefined) return record['error'] === code && typeof record['error_description'] === 'string';
  return (typeof record['error'] === 'string' && typeof record['error_description'] === 'string') || record['error'] === true;
}
