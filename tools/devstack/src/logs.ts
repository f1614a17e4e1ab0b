import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Log files hold one run each, so a tail shows this run only. */
export async function clearLogs(logDir: string): Promise<void> {
  for (const file of await readdir(logDir)) {
    if (file.endsWith('.log')) await rm(join(logDir, file), { force: true });
  }
}

/** The last `lines` lines of each log file (of `names`, or all), for a failure report. */
export async function tailLogs(logDir: string, lines: number, names?: readonly string[]): Promise<string> {
  const files = names ? names.map((name) => `${name}.log`) : (await readdir(logDir)).filter((file) => file.endsWith('.log')).sort();
  const parts: string[] = [];
  for (const file of files) {
    const text = await readFile(join(logDir, file), 'utf8').catch(() => '');
    const tail = text.trimEnd().split('\n').slice(-lines).join('\n');
    parts.push(`--- ${join(logDir, file)} ---\n${tail || '(empty)'}`);
  }
  return parts.join('\n');
}
