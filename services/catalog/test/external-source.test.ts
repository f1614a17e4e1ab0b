import { ServiceError } from '@masthead/core/errors';
import { createLogger } from '@masthead/core/logging';
import { describe, expect, it } from 'vitest';
import type { PlanRepository } from '../src/plans/plan.repository.js';
import type { PlanRecord } from '../src/plans/plan.schema.js';
import { ExternalSourceLookup, hasExternalSourceToken, sanitizeExternalSourceId } from '../src/pricings/external-source.lookup.js';
import type { PricingRepository } from '../src/pricings/pricing.repository.js';
import type { PricingRecord } from '../src/pricings/pricing.schema.js';

describe('sanitizeExternalSourceId', () => {
  it('strips tags and control characters, trims and lowercases', () => {
    expect(sanitizeExternalSourceId('  <b>App-1</b>\t')).toBe('app-1');
    expect(sanitizeExternalSourceId('com.Store.Yearly')).toBe('com.store.yearly');
    expect(sanitizeExternalSourceId('a\u0000b')).toBe('ab');
    expect(sanitizeExternalSourceId(' <i></i> ')).toBe('');
  });
});

describe('hasExternalSourceToken', () => {
  it('matches one complete comma-separated token, in any case and spacing', () => {
    expect(hasExternalSourceToken('app-1,app-10', 'app-1')).toBe(true);
    expect(hasExternalSourceToken('app-1,app-10', 'app-10')).toBe(true);
    expect(hasExternalSourceToken('app-1,app-10', 'app')).toBe(false);
    expect(hasExternalSourceToken('Store.Yearly , WEB-Y', 'web-y')).toBe(true);
    expect(hasExternalSourceToken('', 'x')).toBe(false);
  });
});

describe('ExternalSourceLookup', () => {
  const plan = { _id: 7, resource_id: 3, title: 'Plan' } as PlanRecord;
  const pricing = (id: number, ids: string) => ({ _id: id, plan_id: 7, resource_id: 3, external_source_ids: ids }) as PricingRecord;
  const lookupWith = (rows: () => Promise<PricingRecord[]>, plans: () => Promise<PlanRecord | null> = async () => plan) =>
    new ExternalSourceLookup({
      pricings: { findByExternalSourceText: rows } as unknown as PricingRepository,
      plans: { findAnyById: plans } as unknown as PlanRepository,
      logger: createLogger({ name: 'test', level: 'silent' }),
    });
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'resolved',
      (error: unknown) => (error instanceof ServiceError ? `${error.status} ${error.code}` : 'other'),
    );

  it('picks the lowest ID among whole-token matches of the prefilter', async () => {
    const lookup = lookupWith(async () => [pricing(1, 'app-10'), pricing(2, 'x,APP-1'), pricing(3, 'app-1')]);
    expect((await lookup.find(3, ' App-1 ')).pricing._id).toBe(2);
  });

  it('names each failure with its documented code', async () => {
    expect(await codeOf(lookupWith(async () => []).find(3, undefined))).toBe('409 external_source_id_required');
    expect(await codeOf(lookupWith(async () => []).find(3, ''))).toBe('409 external_source_id_required');
    expect(await codeOf(lookupWith(async () => []).find(3, '  '))).toBe('409 subscription_source_id_required');
    expect(await codeOf(lookupWith(async () => [pricing(1, 'app-10')]).find(3, 'app-1'))).toBe('404 subscription_not_found');
    expect(
      await codeOf(
        lookupWith(
          async () => [pricing(1, 'app-1')],
          async () => null,
        ).find(3, 'app-1'),
      ),
    ).toBe('404 not_found');
    expect(
      await codeOf(
        lookupWith(
          async () => [pricing(1, 'app-1')],
          async () => ({ ...plan, resource_id: 4 }),
        ).find(3, 'app-1'),
      ),
    ).toBe('404 not_found');
  });

  it('turns a storage failure into 400 external_subscription_failed', async () => {
    const failing = lookupWith(async () => {
      throw new Error('connection reset');
    });
    const error = await failing.find(3, 'app-1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).toJSON()).toEqual({
      status: 400,
      code: 'external_subscription_failed',
      description: 'Failed to create external subscription',
    });
  });
});
