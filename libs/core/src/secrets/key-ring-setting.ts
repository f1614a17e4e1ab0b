import { z } from 'zod';
import { parseKeyRing, type KeyRing } from './secret-box.js';

/**
 * A key-ring variable of a service's config (`<SERVICE>_SECRETS_KEYS`, docs/adr/0120): optional,
 * and when set it must parse, so a bad ring fails at boot with parseKeyRing's reason.
 */
export const keyRingSetting = () =>
  z
    .string()
    .optional()
    .superRefine((value, context) => {
      try {
        if (value !== undefined) parseKeyRing(value);
      } catch (error) {
        context.addIssue({ code: z.ZodIssueCode.custom, message: (error as Error).message });
      }
    });

/** A fixed ring for development and tests, from a 32-character seed: public, so never for production. */
export const developmentKeyRing = (seed: string): string => `dev:${Buffer.alloc(32, seed).toString('base64')}`;

/**
 * The ring a service seals with: the configured one; unset, the development ring outside
 * production and none in production (the service then refuses to store or use secrets).
 */
export function keyRingOrDevelopment(configured: string | undefined, environment: string, developmentRing: string): KeyRing | null {
  if (configured) return parseKeyRing(configured);
  return environment === 'production' ? null : parseKeyRing(developmentRing);
}
