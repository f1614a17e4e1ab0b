import type { ProviderCard } from '../card-provider/card-provider.js';
import type { CardDetails } from './source.schema.js';

/** Provider card → the list's `data` (expiration as `MM/YYYY`, docs/adr/0122). */
export const cardDetailsOf = (card: ProviderCard): CardDetails => ({
  card_brand: card.brand,
  card_country: card.country,
  card_last4: card.last4,
  expiration_date: card.expMonth && card.expYear ? `${String(card.expMonth).padStart(2, '0')}/${card.expYear}` : '',
});
