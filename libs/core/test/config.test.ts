import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, serviceAddresses, serviceEnv } from '../src/config/index.js';

describe('loadConfig', () => {
  it('returns a frozen, typed object with defaults', () => {
    const config = loadConfig(serviceEnv, {});
    expect(config.GRPC_LISTEN).toBe('0.0.0.0:50051');
    expect(config.OUTBOX_RETRY_MS).toBe(2000);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('lists every bad variable at once, by name', () => {
    const env = { GRPC_LISTEN: 'nope', MONGO_URL: 'postgres://x', OUTBOX_RETRY_MS: '-1', ACCOUNTS_ADDR: 'host:99999' };
    let error: unknown;
    try {
      loadConfig({ ...serviceEnv, ...serviceAddresses }, env);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.map((problem) => problem.split(':')[0]);
    expect(problems.sort()).toEqual(['ACCOUNTS_ADDR', 'GRPC_LISTEN', 'MONGO_URL', 'OUTBOX_RETRY_MS']);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(serviceEnv, { LOG_LEVEL: '' }).LOG_LEVEL).toBe('info');
  });
});
