import { describe, expect, it } from 'vitest';
import { ServiceError } from '../src/errors/index.js';
import { requireScope } from '../src/grpc/index.js';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof ServiceError ? { status: error.status, code: error.code, description: error.description } : error;
  }
  return 'accepted';
};

describe('requireScope', () => {
  it('hands back a scope that names its resource (and its member where needed)', () => {
    const scope = { resourceId: 7, userId: 9, email: 'a@b.test' };
    expect(requireScope(scope, 'member', { member: true })).toBe(scope);
    expect(requireScope({ resourceId: 7 }, 'resource')).toEqual({ resourceId: 7 });
  });

  it.each([
    ['absent', undefined, {}],
    ['resource 0', { resourceId: 0, userId: 9 }, {}],
    ['a negative resource', { resourceId: -1 }, {}],
    ['member 0 where a member is needed', { resourceId: 7, userId: 0 }, { member: true }],
    ['no member where a member is needed', { resourceId: 7 }, { member: true }],
  ])('refuses a scope that is %s, never reading it as tenant 0', (_, scope, needs) => {
    expect(refusal(() => requireScope(scope, 'caller', needs))).toEqual({
      status: 400,
      code: 'incorrect_data',
      description: 'caller scope missing',
    });
  });
});
