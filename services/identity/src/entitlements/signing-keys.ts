import type { Logger } from '@masthead/core/logging';
import { SecretUnavailable, type KeyRing } from '@masthead/core/secrets';
import type { EntitlementTiming } from './entitlements.config.js';
import { CompactSigner, newKeyMaterial, openPrivateKey, openSealedPem, sealPrivateKey } from './key-material.js';
import { KeySchedule, type KeyState, type ScheduledKey } from './key-schedule.js';
import type { SigningKeyRepository } from './signing-key.repository.js';
import type { PublicJwk, SigningKeyRecord } from './signing-key.schema.js';

/** A stored key as this process holds it: its schedule, public half and, when opened, its signer. */
interface HeldKey extends ScheduledKey {
  publicJwk: PublicJwk;
  /** Null when the ring cannot open it (logged once): published, never used to sign. */
  signer: CompactSigner | null;
  /** The sealed value the signer was opened from: a reload opens a key only once. */
  ciphertext: string;
}

/** A key and where it stands, for operators; never a private key. */
export interface KeyView {
  kid: string;
  alg: 'EdDSA';
  createdAt: Date;
  signsFrom: Date;
  retiresAt: Date | null;
  state: KeyState;
}

interface SigningKeysDeps {
  repository: SigningKeyRepository;
  /** Null in production without IDENTITY_SECRETS_KEYS: nothing signs, the set is empty. */
  ring: KeyRing | null;
  timing: EntitlementTiming;
  logger: Logger;
  /** Milliseconds since the epoch. */
  clock: () => number;
}

/**
 * The signing keys, read from their collection at start and again every key-set age, so that a
 * rotation made through another replica is held here well before its key signs (docs/adr/0247).
 * Which key signs and which are published follows from the stored times alone, so every replica
 * switches at the same moment without being told.
 */
export class SigningKeys {
  private schedule: KeySchedule<HeldKey>;
  private reloads: NodeJS.Timeout | undefined;
  private published: { kids: string; text: string } | undefined;

  constructor(private readonly deps: SigningKeysDeps) {
    this.schedule = new KeySchedule<HeldKey>([], deps.timing);
  }

  /**
   * Re-seals keys sealed with an older key of the ring (the rotation procedure of docs/adr/0120),
   * stores the first key when there is none, loads the keys and keeps them fresh.
   */
  async start(): Promise<void> {
    if (!this.deps.ring) this.deps.logger.warn('IDENTITY_SECRETS_KEYS is not set: entitlement tokens are not issued');
    else await this.resealAll(this.deps.ring);
    await this.reload();
    if (this.deps.ring && this.schedule.all().length === 0) await this.addNext(this.deps.ring);
    this.reloads = setInterval(
      () => {
        this.reload().catch((error: unknown) => this.deps.logger.warn({ err: error }, 'signing keys not reloaded'));
      },
      Math.max(this.deps.timing.keySetMaxAgeMs, 100),
    );
    this.reloads.unref();
  }

  stop(): void {
    clearInterval(this.reloads);
  }

  /** The signer of new tokens now; undefined when no key can sign. */
  signer(): CompactSigner | undefined {
    return this.schedule.signerAt(this.deps.clock())?.signer ?? undefined;
  }

  /** `{"keys": [...]}` of the keys published now, the same text while the set stays the same. */
  publishedJwks(): string {
    const keys = this.schedule.publishedAt(this.deps.clock());
    const kids = keys.map((key) => key.kid).join(',');
    if (this.published?.kids !== kids) {
      const jwks = keys.map((key) => ({ ...key.publicJwk, kid: key.kid, alg: 'EdDSA', use: 'sig' }));
      this.published = { kids, text: JSON.stringify({ keys: jwks }) };
    }
    return this.published.text;
  }

  /**
   * A rotation: a new key, published at once, signing a rotation lead from now; the key signing
   * now keeps signing until then and stays published until its last token expires. Of two
   * rotations at once one stores the key; the other finds it stored.
   */
  async rotate(): Promise<KeyView[]> {
    const ring = this.deps.ring;
    if (!ring) return this.views();
    await this.reload();
    await this.addNext(ring);
    return this.views();
  }

  async views(): Promise<KeyView[]> {
    await this.reload();
    const now = this.deps.clock();
    return this.schedule.all().map((key) => {
      const retiresAt = this.schedule.retiresAt(key);
      return {
        kid: key.kid,
        alg: 'EdDSA',
        createdAt: new Date(key.createdAt),
        signsFrom: new Date(key.signsFrom),
        retiresAt: retiresAt === undefined ? null : new Date(retiresAt),
        state: this.schedule.stateAt(key, now),
      };
    });
  }

  /** Stores the next generation; a racing process that stored it first wins, and both reload. */
  private async addNext(ring: KeyRing): Promise<void> {
    const now = this.deps.clock();
    const { generation, signsFrom } = this.schedule.nextAt(now);
    const material = newKeyMaterial(ring);
    const record: SigningKeyRecord = {
      _id: material.kid,
      generation,
      alg: 'EdDSA',
      public_jwk: material.publicJwk,
      private_key: material.sealedPrivateKey,
      created_at: new Date(now),
      signs_from: new Date(signsFrom),
    };
    if (await this.deps.repository.insert(record))
      this.deps.logger.info({ kid: record._id, generation, signsFrom: record.signs_from }, 'signing key stored');
    await this.reload();
  }

  private async resealAll(ring: KeyRing): Promise<void> {
    let resealed = 0;
    for (const record of await this.deps.repository.list()) {
      if (record.private_key.key_id === ring.current.id) continue;
      try {
        await this.deps.repository.reseal(record, sealPrivateKey(ring, record._id, openSealedPem(ring, record._id, record.private_key)));
        resealed++;
      } catch (error) {
        if (!(error instanceof SecretUnavailable)) throw error;
        this.deps.logger.error({ kid: record._id, keyId: record.private_key.key_id }, error.message);
      }
    }
    if (resealed > 0) this.deps.logger.info({ resealed }, 'signing keys re-sealed with the current key');
  }

  private async reload(): Promise<void> {
    const records = await this.deps.repository.list();
    const held = new Map(this.schedule.all().map((key) => [key.kid, key]));
    this.schedule = new KeySchedule(
      records.map((record) => this.hold(record, held.get(record._id))),
      this.deps.timing,
    );
  }

  private hold(record: SigningKeyRecord, before: HeldKey | undefined): HeldKey {
    const key = {
      kid: record._id,
      generation: record.generation,
      createdAt: record.created_at.getTime(),
      signsFrom: record.signs_from.getTime(),
      publicJwk: record.public_jwk,
      ciphertext: record.private_key.ciphertext,
    };
    if (before?.ciphertext === key.ciphertext) return { ...key, signer: before.signer };
    return { ...key, signer: this.open(record) };
  }

  private open(record: SigningKeyRecord): CompactSigner | null {
    if (!this.deps.ring) return null;
    try {
      return new CompactSigner(record._id, openPrivateKey(this.deps.ring, record._id, record.private_key));
    } catch (error) {
      if (!(error instanceof SecretUnavailable)) throw error;
      // The kid and the ring's key ID only; never key material.
      this.deps.logger.error({ kid: record._id, keyId: record.private_key.key_id }, error.message);
      return null;
    }
  }
}
