import { z } from 'zod';
import { parseKeyRing, type KeyRing } from './secret-box.js';

/**
 * An environment setting that holds a key ring (`id:base64(32 bytes)[,id:…]`, the first key
 * sealing): optional, and refused at boot, with the parser's reason, when malformed.
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

/**
 * The ring a service seals provider secrets with: the configured one; outside production, when
 * none is configured, the public `developmentRing` (so that tests and `npm start` need no setup);
 * null in production without one (the service then stores and uses no secret).
 */
export function keyRingOrDevelopment(configured: string | undefined, mastheadEnv: string, developmentRing: string): KeyRing | null {
  if (configured) return parseKeyRing(configured);
  return mastheadEnv === 'production' ? null : parseKeyRing(developmentRing);
}
