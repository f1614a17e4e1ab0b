import { describe, expect, it } from 'vitest';
import { refundedLines, type ChargeRefund } from '../src/refunds/refunded-lines.js';

/** Which purchase lines a charge's refunds cover whole (docs/adr/0234). */
describe('refundedLines', () => {
  const cart = (amounts: number[], unfulfilled: number[] = []) => ({
    amount: amounts.reduce((sum, amount) => sum + amount, 0),
    purchases: amounts.map((amount, line) => ({ amount, unfulfilled: unfulfilled.includes(line) ? 'ti_event_tickets_sold_out' : null })),
  });
  const keyOf = (line: number) => `masthead:1:2:refund:3:${line}:v1`;
  const byHand = (amount: number): ChargeRefund => ({ amount, key: null });
  const lines = (amounts: number[], refunds: ChargeRefund[], unfulfilled: number[] = []) =>
    refundedLines(cart(amounts, unfulfilled), refunds, keyOf);

  it('covers every line once the whole amount went back, in one refund or several', () => {
    expect(lines([999, 2500], [byHand(3499)])).toEqual([0, 1]);
    expect(lines([999, 2500], [byHand(400), byHand(3099)])).toEqual([0, 1]);
  });

  it('covers the lines billing refunded under their own keys', () => {
    expect(lines([999, 2500], [{ amount: 2500, key: keyOf(1) }], [1])).toEqual([1]);
  });

  it('covers the one set of lines an amount refunded by hand makes up exactly', () => {
    expect(lines([999, 2500, 5000], [byHand(2500)])).toEqual([1]);
    expect(lines([999, 2500, 5000], [byHand(1000), byHand(4999)])).toEqual([0, 2]);
    // Beside a keyed refund of a line that was never granted.
    expect(lines([999, 2500, 5000], [{ amount: 2500, key: keyOf(1) }, byHand(999)], [1])).toEqual([0, 1]);
  });

  it('covers nothing by hand when no set of lines, or more than one, makes the amount up', () => {
    expect(lines([999, 2500], [byHand(100)])).toEqual([]);
    expect(lines([2500, 2500, 999], [byHand(2500)])).toEqual([]);
    expect(lines([1000, 2000, 3000], [byHand(3000)])).toEqual([]);
    // A line refunded because it was never granted is no candidate for a refund by hand.
    expect(lines([999, 2500], [byHand(2500)], [1])).toEqual([]);
  });
});
