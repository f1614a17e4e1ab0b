import type { SigningKey } from '@masthead/proto/identity/entitlements';
import type { AdminClients } from './clients.js';

/** Operator commands of the entitlement signing keys (docs/adr/0247). */
export const SIGNING_KEY_USAGE = `
  rotate-signing-key                    a new entitlement signing key: published at once, signing
                                        one token lifetime (and the key set's cache ages) later;
                                        the key signing now stays published until its last token
                                        has expired. Prints every key and its schedule
  list-signing-keys                     the keys (kid, state, signs_from, retires_at); never a
                                        private key
`;

/** A key as operators read it. */
const showKey = (key: SigningKey) => ({
  kid: key.kid,
  alg: key.alg,
  state: key.state,
  created_at: key.createdAt,
  signs_from: key.signsFrom,
  retires_at: key.retiresAt ?? null,
});

export const SIGNING_KEY_COMMANDS: Record<string, (clients: AdminClients) => Promise<unknown>> = {
  'rotate-signing-key': async (clients) => (await clients.entitlements.rotateSigningKey({})).keys.map(showKey),
  'list-signing-keys': async (clients) => (await clients.entitlements.listSigningKeys({})).keys.map(showKey),
};
