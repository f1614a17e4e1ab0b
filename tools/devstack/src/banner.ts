/** Demo identifiers created by fixtures/demo.json. */
export const DEMO = {
  resourceKey: 'demo-resource',
  email: 'member@demo.test',
  password: 'Demo-password-1',
} as const;

/** What a newcomer needs to make a first call. */
export function banner(baseUrl: string, readyMs: number, fixtureLoaded: boolean): string {
  const body = JSON.stringify({ email: DEMO.email, password: DEMO.password });
  const lines = [
    '',
    `Masthead is ready in ${(readyMs / 1000).toFixed(1)} s: ${baseUrl}`,
    '',
    `  demo resource key  ${DEMO.resourceKey}`,
    `  demo member        ${DEMO.email} / ${DEMO.password}`,
    '',
    '  sign in:',
    `  curl -s -X POST ${baseUrl}/authorization -H 'resource: ${DEMO.resourceKey}' -H 'Content-Type: application/json' -d '${body}'`,
    '',
    'Logs are in .data/logs (LOG_TO_CONSOLE=1 to see them here). Ctrl-C stops everything.',
  ];
  if (!fixtureLoaded) lines.splice(2, 0, '  (the demo fixture was NOT loaded: the demo key and member may not exist)');
  return lines.join('\n');
}
