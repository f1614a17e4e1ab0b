/** Whether the email's domain matches a pattern (`example.com` exactly, `*.example.com` any subdomain). */
export function domainAllowed(email: string, patterns: readonly string[]): boolean {
  if (patterns.length === 0) return true;
  const domain = email.split('@')[1]?.toLowerCase() ?? '';
  return patterns.some((raw) => {
    const pattern = raw.toLowerCase();
    return pattern.startsWith('*.') ? domain.endsWith(pattern.slice(1)) : domain === pattern;
  });
}
