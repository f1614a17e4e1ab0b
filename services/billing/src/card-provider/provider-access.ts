import type { ProviderMode } from '../connections/connection.schema.js';
import type { ConnectionService } from '../connections/connection.service.js';
import type { CardProvider } from './card-provider.js';
import type { CardProviderFactory } from './stripe-card-provider.js';

/** Thrown when the resource has no usable secret key for the mode (configuration failure). */
export class ProviderNotConfigured extends Error {
  constructor(resourceId: number, mode: ProviderMode) {
    super(`no card-provider secret key for resource ${resourceId} in ${mode} mode`);
    this.name = 'ProviderNotConfigured';
  }
}

/** The card provider acting for one resource in one mode, with that pair's secret key. */
export class ProviderAccess {
  constructor(
    private readonly connections: ConnectionService,
    private readonly factory: CardProviderFactory,
  ) {}

  async for(resourceId: number, mode: ProviderMode): Promise<CardProvider> {
    const secretKey = await this.connections.secretKey(resourceId, mode);
    if (!secretKey) throw new ProviderNotConfigured(resourceId, mode);
    return this.factory(secretKey);
  }
}
