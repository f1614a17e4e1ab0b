import { z } from 'zod';

/** Raised at boot when the environment does not satisfy a process's config schema. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates the environment against a schema whose keys are environment variable names and
 * returns a frozen, typed object. Every bad key is listed at once, so an operator fixes them in
 * one pass. Values of keys in `secretKeys` never appear in the message.
 */
export function loadConfig<Shape extends z.ZodRawShape>(
  shape: Shape,
  env: NodeJS.ProcessEnv = process.env,
): Readonly<z.infer<z.ZodObject<Shape>>> {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(shape)) {
    const value = env[key];
    input[key] = value === '' ? undefined : value;
  }
  const result = z.object(shape).safeParse(input);
  if (!result.success) {
    const byKey = new Map<string, string[]>();
    for (const issue of result.error.issues) {
      const key = issue.path.join('.');
      byKey.set(key, [...(byKey.get(key) ?? []), issue.message]);
    }
    throw new ConfigError([...byKey].map(([key, messages]) => `${key}: ${messages.join('; ')}`));
  }
  return Object.freeze(result.data);
}
