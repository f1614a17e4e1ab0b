import PDFDocument from 'pdfkit';
import type { TransactionRecord } from './transaction.schema.js';

/** ISO 4217 currencies without a minor unit; every other currency is shown with two decimals. */
const ZERO_DECIMAL = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);

/** Minor units as the currency writes them: `999, USD` → `9.99 USD` (never through a float). */
export function formatMoney(minor: number, currency: string): string {
  const code = currency.toUpperCase();
  if (ZERO_DECIMAL.has(code)) return `${minor} ${code}`;
  const sign = minor < 0 ? '-' : '';
  const digits = String(Math.abs(minor)).padStart(3, '0');
  return `${sign}${digits.slice(0, -2)}.${digits.slice(-2)} ${code}`;
}

export type DocumentKind = 'invoice' | 'receipt';

/**
 * The transaction as a one-page PDF (document 2 G: "render invoice PDF"). Deterministic: the
 * document's dates are the transaction's, so pdfkit's file ID (a digest of the info dictionary)
 * and every byte are the same for the same transaction (docs/adr/0143). Standard fonts only:
 * nothing is embedded.
 */
export function renderDocument(transaction: TransactionRecord, kind: DocumentKind): Promise<Buffer> {
  const issued = kind === 'receipt' && transaction.receipt ? transaction.receipt.created_at : transaction.created_at;
  const title = kind === 'receipt' ? 'Receipt' : 'Invoice';
  const document = new PDFDocument({
    size: 'A4',
    margin: 56,
    info: {
      Title: `${title} ${transaction._id}`,
      Author: transaction.resource_title,
      Creator: 'Masthead',
      Producer: 'Masthead',
      CreationDate: issued,
      ModDate: issued,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    document.on('data', (chunk: Buffer) => chunks.push(chunk));
    document.on('end', () => resolve(Buffer.concat(chunks)));
    document.on('error', reject);
  });
  const money = (minor: number) => formatMoney(minor, transaction.currency);

  document
    .font('Helvetica-Bold')
    .fontSize(20)
    .text(transaction.resource_title || 'Masthead');
  document.moveDown(0.5).font('Helvetica').fontSize(14).text(`${title} for transaction ${transaction._id}`);
  if (kind === 'receipt' && transaction.receipt) document.fontSize(11).text(`Receipt number: ${transaction.receipt.number}`);
  document.moveDown().fontSize(11);
  document.text(`Date: ${issued.toISOString().slice(0, 10)}`);
  document.text(`Billed to: ${[transaction.member_name, transaction.member_email].filter(Boolean).join(' ')}`);
  document.text(`Status: ${transaction.status}`);
  document.text(
    `Payment: ${transaction.pay_system}${transaction.card ? ` (${transaction.card.brand} ending ${transaction.card.last4})` : ''}`,
  );
  document.moveDown();
  document.font('Helvetica-Bold').text('Items');
  document.font('Helvetica');
  for (const purchase of transaction.purchases) {
    document.text(`${purchase.title || `${purchase.item_type} ${purchase.item_id}`}: ${money(purchase.price)}`);
    if (purchase.discount > 0)
      document.text(`  Discount${purchase.promo_code ? ` (${purchase.promo_code})` : ''}: -${money(purchase.discount)}`);
  }
  document.moveDown();
  document.font('Helvetica-Bold').text(`Total: ${money(transaction.amount)}`);
  document.font('Helvetica');
  if (transaction.amount_refunded > 0) document.text(`Refunded: ${money(transaction.amount_refunded)}`);
  document.end();
  return done;
}
