import { Schema, type Connection, type Model } from 'mongoose';

/** An application for an account (document 2, J). Not an account: nothing else is created. */
export interface AccountRequestRecord {
  _id: number;
  resource_id: number;
  first_name: string;
  last_name: string;
  company_name: string;
  job_title: string;
  /** Trimmed and lowercased. */
  email: string;
  plan: string;
  number_of_websites: number;
  phone_number: string | null;
  terms_and_conditions: boolean;
  /** The provider token given at creation or with the payment attempt; never returned. */
  cardprovider_token: string | null;
  /** Set by billing once the record is charged (POST /account-requests-payment). */
  cardprovider_customer_id: string | null;
  cardprovider_charge_id: string | null;
  remote_address: string;
  created_at: Date;
  updated_at: Date;
}

const accountRequestSchema = new Schema<AccountRequestRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    first_name: { type: String, required: true },
    last_name: { type: String, required: true },
    company_name: { type: String, required: true },
    job_title: { type: String, required: true },
    email: { type: String, required: true },
    plan: { type: String, required: true },
    number_of_websites: { type: Number, required: true },
    phone_number: { type: String, default: null },
    terms_and_conditions: { type: Boolean, required: true },
    cardprovider_token: { type: String, default: null },
    cardprovider_customer_id: { type: String, default: null },
    cardprovider_charge_id: { type: String, default: null },
    remote_address: { type: String, default: '' },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'account_requests', versionKey: false },
);
// Records are read by `_id` only (billing's payment); no other index is needed.

export const accountRequestModel = (db: Connection): Model<AccountRequestRecord> =>
  db.models['AccountRequest'] ?? db.model<AccountRequestRecord>('AccountRequest', accountRequestSchema);
