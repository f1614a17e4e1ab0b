import { ABSENT_VERIFIER_HASH, newCode, parseCode, verifierMatches } from './code-secret.js';
import type { MemberCodeRepository } from './member-code.repository.js';
import type { CodePurpose, MemberCodeRecord } from './member-code.schema.js';

/** Whom a code is for and what address it proves. */
export interface CodeTarget {
  userId: number;
  resourceId: number;
  email: string;
}

export interface IssuedCode {
  code: string;
  expiresAt: Date;
}

/**
 * The store of one-time uses (`secret_uses`, shared with refresh records and authorization
 * codes): the insert of a use is the claim, so two parallel uses cannot both win, on MongoDB or
 * FerretDB (whose conditional updates are read-then-write).
 */
export interface OneTimeClaims {
  /** False when the key was claimed before. */
  claimUse(key: string): Promise<boolean>;
}

export interface MemberCodesDeps {
  repository: MemberCodeRepository;
  claims: OneTimeClaims;
}

/**
 * Issues and redeems member codes: random, stored only as hashes, single use, expiring, bound
 * to one resource and one purpose (docs/adr/0055).
 */
export class MemberCodes {
  constructor(private readonly deps: MemberCodesDeps) {}

  async issue(purpose: CodePurpose, target: CodeTarget, ttlSeconds: number): Promise<IssuedCode> {
    const { code, selector, verifierHash } = newCode();
    const now = new Date();
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    await this.deps.repository.replace({
      _id: selector,
      purpose,
      verifier_hash: verifierHash,
      user_id: target.userId,
      resource_id: target.resourceId,
      email: target.email,
      expires_at: expiresAt,
      created_at: now,
    });
    return { code, expiresAt };
  }

  /**
   * Uses a code once. Null when it is malformed, unknown, of another purpose or resource,
   * expired or already used: callers answer all of these alike.
   */
  async redeem(rawCode: string, resourceId: number, purposes: readonly CodePurpose[]): Promise<MemberCodeRecord | null> {
    const parsed = parseCode(rawCode);
    if (!parsed) return null;
    const record = await this.deps.repository.find(parsed.selector);
    // Compared even when nothing was found, so that both paths do the same work.
    const matches = verifierMatches(parsed.verifier, record?.verifier_hash ?? ABSENT_VERIFIER_HASH);
    if (!record || !matches) return null;
    if (!purposes.includes(record.purpose) || record.resource_id !== resourceId || record.expires_at.getTime() <= Date.now()) return null;
    if (!(await this.deps.claims.claimUse(`member_code:${record._id}`))) return null;
    await this.deps.repository.delete(record._id);
    return record;
  }
}
