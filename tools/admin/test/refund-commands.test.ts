import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/args.js';
import { REFUND_COMMANDS, REFUND_STRING_OPTIONS, REFUND_USAGE, writeOffReason } from '../src/refund-commands.js';

/** write-off-owed-refund's options, read before billing is called (docs/adr/0223). */
describe('write-off-owed-refund', () => {
  it('is listed with its options and usage', () => {
    expect(Object.keys(REFUND_COMMANDS)).toEqual(['list-owed-refunds', 'retry-owed-refund', 'write-off-owed-refund']);
    expect(REFUND_STRING_OPTIONS).toEqual(['key', 'reason']);
    expect(REFUND_USAGE).toContain('write-off-owed-refund --key K --reason "..."');
  });

  it('needs a reason that is not blank, and leaves its length to billing', () => {
    expect(writeOffReason({ reason: '  paid by bank transfer  ' })).toBe('paid by bank transfer');
    for (const values of [{}, { reason: '' }, { reason: '   ' }, { reason: true }]) {
      expect(() => writeOffReason(values)).toThrow(new UsageError('--reason is required'));
    }
    // Billing's write-off command answers 400 invalid_reason beyond 500 characters (refunds.test.ts).
    expect(writeOffReason({ reason: 'x'.repeat(501) })).toBe('x'.repeat(501));
  });
});
