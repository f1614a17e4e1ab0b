import currencyCodes from 'currency-codes';

export type CurrencySource = 'resource' | 'deployment' | null;

export interface CurrencyView {
  /** The configured label, exactly as configured. */
  title: string;
  /** ISO 4217 details when the label is a known code (currency-codes); null otherwise. */
  code: string | null;
  name: string | null;
  digits: number | null;
}

export interface CurrencyList {
  items: CurrencyView[];
  source: CurrencySource;
}

export interface CurrencyDeps {
  resourceSettings: (resourceId: number) => Promise<Record<string, unknown>>;
  /** DEFAULT_CURRENCIES: the labels of resources that configure none. */
  defaults: readonly string[];
}

/** The labels of a `currencies` setting: strings, trimmed, empty ones and other types skipped. */
export function currencyLabels(setting: unknown): string[] | null {
  if (!Array.isArray(setting)) return null;
  return setting.filter((item): item is string => typeof item === 'string' && item.trim() !== '').map((item) => item.trim());
}

const describe = (label: string): CurrencyView => {
  const record = currencyCodes.code(label.toUpperCase());
  return { title: label, code: record?.code ?? null, name: record?.currency ?? null, digits: record?.digits ?? null };
};

/**
 * The configured currency labels of GET /currency (document 2, B: configured order, no
 * conversion, symbol or precision). The resource setting `currencies` (an array of labels)
 * wins, an empty array included; without it, the deployment default applies.
 */
export class CurrencyService {
  constructor(private readonly deps: CurrencyDeps) {}

  async list(resourceId: number): Promise<CurrencyList> {
    const configured = resourceId > 0 ? currencyLabels((await this.deps.resourceSettings(resourceId))['currencies']) : null;
    if (configured) return { items: configured.map(describe), source: configured.length > 0 ? 'resource' : null };
    const defaults = [...this.deps.defaults];
    return { items: defaults.map(describe), source: defaults.length > 0 ? 'deployment' : null };
  }
}
