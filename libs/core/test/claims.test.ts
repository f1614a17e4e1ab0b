import { describe, expect, it } from 'vitest';
import { claimSlot } from '../src/mongo/claims.js';

/** A unique key over slot numbers, answering a taken one like MongoDB does (E11000). */
function uniqueSlots(taken: number[] = []) {
  const held = new Set(taken);
  const probes: number[] = [];
  const insert = async (slot: number) => {
    probes.push(slot);
    if (held.has(slot)) throw Object.assign(new Error('E11000 duplicate key'), { code: 11000 });
    held.add(slot);
  };
  return { held, probes, insert };
}

describe('claimSlot', () => {
  it('gives parallel claims distinct slots below the cap, and null to the rest', async () => {
    const slots = uniqueSlots();
    const results = await Promise.all(Array.from({ length: 25 }, () => claimSlot(slots.insert, 0, 10)));
    const granted = results.filter((slot): slot is number => slot !== null);
    expect(granted.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(results.filter((slot) => slot === null)).toHaveLength(15);
  });

  it('refuses without probing when the count is at the cap, and finds a hole below the hint', async () => {
    const full = uniqueSlots([0, 1, 2]);
    expect(await claimSlot(full.insert, 3, 3)).toBeNull();
    expect(full.probes).toEqual([]);
    const holed = uniqueSlots([0, 2, 3, 4]);
    expect(await claimSlot(holed.insert, 4, 5)).toBe(1);
  });

  it('scans upward from the hint without a cap', async () => {
    const slots = uniqueSlots([0, 1, 2, 5]);
    expect(await claimSlot(slots.insert, 2, 0)).toBe(3);
    expect(slots.probes).toEqual([2, 3]);
  });
});
