import { describe, expect, it } from 'vitest';

import { commandDelta, roundTrips } from '../src/db-commands.js';

describe('database round trips', () => {
  it('counts what each process sent between two snapshots, and which of it wrote', () => {
    const before = { identity: { find: 10, insert: 2 }, catalog: { find: 5 } };
    const after = { identity: { find: 14, insert: 3, update: 1 }, catalog: { find: 5 }, community: { find: 2 } };
    const delta = commandDelta(before, after);
    expect(delta).toEqual({ identity: { find: 4, insert: 1, update: 1 }, catalog: {}, community: { find: 2 } });
    expect(roundTrips(delta)).toEqual({ total: 8, writes: 2, byProcess: { identity: 6, community: 2 } });
  });

  it('tells writes from reads by the command when the counts name the collection too', () => {
    const delta = {
      identity: { 'find sessions': 3, 'insert session_tokens': 1, 'update sessions': 1, 'findAndModify counters': 1, ping: 1 },
    };
    expect(roundTrips(delta)).toEqual({ total: 7, writes: 3, byProcess: { identity: 7 } });
  });
});
