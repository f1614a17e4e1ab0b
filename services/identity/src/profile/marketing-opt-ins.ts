/**
 * Which `extra` keys are marketing opt-ins (docs/adr/0061): a key named `marketing` or
 * `newsletter`, or starting with `marketing_` or `newsletter_` (e.g. `newsletter_weekly`), whose
 * value is a JSON boolean. Other values under such keys are ordinary extra data.
 */
const OPT_IN_KEY = /^(marketing|newsletter)(_|$)/;

/** The opt-ins this update changes: key → new choice; empty when none changed. */
export function changedOptIns(before: Record<string, unknown>, supplied: Record<string, unknown>): Record<string, boolean> {
  const changed: Record<string, boolean> = {};
  for (const [key, value] of Object.entries(supplied)) {
    if (OPT_IN_KEY.test(key) && typeof value === 'boolean' && before[key] !== value) changed[key] = value;
  }
  return changed;
}
