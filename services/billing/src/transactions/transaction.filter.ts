import { TRANSACTION_STATUSES } from './transaction.schema.js';
import { invalidFilterDate, invalidFilterValue, invalidTransactionFilter } from './transaction.errors.js';

type Kind = 'number' | 'text' | 'status' | 'date';

/**
 * Filters of GET /user/transactions (document 2 G: "over transaction fields; purchase fields are
 * not joined"), by bare name or `Transactions.<name>`. Text matches case-insensitively by
 * substring, numbers by value or array membership (document 1, Conventions); `status` by one of
 * its values; `created_at` by a day or a {from, to} range (docs/adr/0143).
 */
const FIELDS: Record<string, { path: string; kind: Kind }> = {
  id: { path: '_id', kind: 'number' },
  status: { path: 'status', kind: 'status' },
  amount: { path: 'amount', kind: 'number' },
  amount_refunded: { path: 'amount_refunded', kind: 'number' },
  currency: { path: 'currency', kind: 'text' },
  pay_system: { path: 'pay_system', kind: 'text' },
  payment_method_id: { path: 'payment_method_id', kind: 'number' },
  user_card_id: { path: 'user_card_id', kind: 'number' },
  created_at: { path: 'created_at', kind: 'date' },
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const isScalar = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

function toDate(value: unknown): Date {
  if (typeof value !== 'string' || !(DAY.test(value.trim()) || DATE_TIME.test(value.trim()))) throw invalidFilterDate();
  const date = new Date(value.trim());
  if (Number.isNaN(date.getTime())) throw invalidFilterDate();
  return date;
}

function dateCondition(value: unknown): Record<string, Date> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const { from, to, ...rest } = value as Record<string, unknown>;
    if (Object.keys(rest).length > 0 || (from === undefined && to === undefined)) throw invalidFilterDate();
    const range: Record<string, Date> = {};
    if (from !== undefined) range['$gte'] = toDate(from);
    // A day as the upper bound includes that whole day.
    if (to !== undefined) range[typeof to === 'string' && DAY.test(to.trim()) ? '$lt' : '$lte'] = dayAfterIfDay(to);
    return range;
  }
  const start = toDate(value);
  if (typeof value === 'string' && DAY.test(value.trim())) return { $gte: start, $lt: new Date(start.getTime() + 86_400_000) };
  return { $eq: start } as unknown as Record<string, Date>;
}

function dayAfterIfDay(value: unknown): Date {
  const date = toDate(value);
  return typeof value === 'string' && DAY.test(value.trim()) ? new Date(date.getTime() + 86_400_000) : date;
}

function condition(name: string, kind: Kind, value: unknown): unknown {
  if (kind === 'date') return dateCondition(value);
  const values = Array.isArray(value) ? value : [value];
  if (values.length === 0 || !values.every(isScalar)) throw invalidFilterValue(name, 'a value or an array of values');
  switch (kind) {
    case 'number': {
      const numbers = values.map((item) => (typeof item === 'string' && item.trim() !== '' ? Number(item) : item));
      if (!numbers.every((item) => typeof item === 'number' && Number.isFinite(item)))
        throw invalidFilterValue(name, 'a number or an array of numbers');
      return Array.isArray(value) ? { $in: numbers } : numbers[0];
    }
    case 'status': {
      const statuses = values.map((item) => String(item).trim().toLowerCase());
      if (!statuses.every((item) => (TRANSACTION_STATUSES as readonly string[]).includes(item)))
        throw invalidFilterValue(name, `one of ${TRANSACTION_STATUSES.join(', ')}`);
      return Array.isArray(value) ? { $in: statuses } : statuses[0];
    }
    case 'text': {
      const alternatives = values.map((item) => escapeRegExp(String(item)));
      return { $regex: alternatives.length === 1 ? alternatives[0] : `(${alternatives.join('|')})`, $options: 'i' };
    }
  }
}

/**
 * The member's `filter` (already an object: a bracket map or parsed JSON) as a storage filter.
 * Throws 400 invalid_filter, invalid_filter_date or invalid_<field> (document 2 G).
 */
export function transactionConditions(filter: unknown): Record<string, unknown> {
  if (filter === undefined || filter === null || filter === '') return {};
  if (typeof filter !== 'object' || Array.isArray(filter)) throw invalidTransactionFilter('must be an object');
  const conditions: Record<string, unknown> = {};
  for (const [raw, value] of Object.entries(filter as Record<string, unknown>)) {
    const name = raw.startsWith('Transactions.') ? raw.slice('Transactions.'.length) : raw;
    const field = FIELDS[name];
    if (!field) throw invalidTransactionFilter(`${raw} is not a transaction field`);
    conditions[field.path] = condition(name, field.kind, value);
  }
  return conditions;
}
