/** Option readers shared by the CLI's command tables. */

export type Values = Record<string, string | boolean | string[] | undefined>;

export const text = (values: Values, name: string): string => {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
};
export const integer = (values: Values, name: string): number => {
  const value = Number(text(values, name));
  if (!Number.isSafeInteger(value)) throw new UsageError(`--${name} must be an integer`);
  return value;
};
export const optional = (values: Values, name: string): string | undefined =>
  typeof values[name] === 'string' ? (values[name] as string) : undefined;

export const list = (values: Values, name: string): string[] => {
  const value = values[name];
  return Array.isArray(value) ? value : [];
};

export class UsageError extends Error {}

export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('pipe the secret key on standard input (e.g. from a secrets manager)');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
