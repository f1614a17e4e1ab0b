import type { ClientOf } from '@masthead/core/clients';
import type { Logger } from '@masthead/core/logging';
import type { NextFunction, Request, Response } from 'express';

/** The key set as identity publishes it: JWKS text and how long an edge may keep it. */
interface PublishedKeySet {
  text: string;
  maxAgeSeconds: number;
  heldUntil: number;
}

/**
 * The published key set, held for as long as identity says an edge may keep it (docs/adr/0247),
 * so that `GET /.well-known/jwks.json` costs no hop: one load at a time, and while identity cannot
 * answer the set held last keeps serving (keys are published long before they sign).
 */
export class KeySetCache {
  private held: PublishedKeySet | undefined;
  private loading: Promise<PublishedKeySet> | undefined;

  constructor(
    private readonly entitlements: ClientOf<'entitlements'>,
    private readonly logger: Logger,
  ) {}

  async current(): Promise<PublishedKeySet> {
    if (this.held && Date.now() < this.held.heldUntil) return this.held;
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    try {
      return await this.loading;
    } catch (error) {
      if (!this.held) throw error;
      this.logger.warn({ err: error }, 'key set not refreshed; the one held keeps serving');
      return this.held;
    }
  }

  private async load(): Promise<PublishedKeySet> {
    const { jwksJson, maxAgeSeconds } = await this.entitlements.getPublishedKeys({}, { idempotent: true });
    this.held = { text: jwksJson, maxAgeSeconds, heldUntil: Date.now() + maxAgeSeconds * 1000 };
    return this.held;
  }
}

/**
 * `GET /.well-known/jwks.json` and its path under `/api/v1` (beyond the spec, docs/adr/0247): the
 * public keys of entitlement tokens, with a Cache-Control an edge may follow.
 */
export function keySetEndpoint(keySet: KeySetCache) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    keySet.current().then(({ text, maxAgeSeconds }) => {
      res.set({ 'content-type': 'application/json', 'cache-control': `public, max-age=${maxAgeSeconds}` }).send(text);
    }, next);
  };
}
