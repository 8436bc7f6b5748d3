import type { CatalogNotice, ShapeSends } from '../catalog/types.js';
import type { ListingDefaults } from './types.js';

/** The fields each shape sends, besides sku. */
const SENT: Record<ListingDefaults['shape'], readonly string[]> = {
  flat: ['marketplace', 'images_source', 'merchant_location_key', 'fulfillment_policy_id', 'payment_policy_id', 'return_policy_id'],
  wrapped: ['title', 'marketplace'],
};

/**
 * What a shape's request body carries, for the catalog's notice of fields given but not sent. A flat run's title is
 * left out of that notice: the flat request has no title (the service derives it), and every shop export has one,
 * so saying so on every run would be noise; the wrapped request leaving out images, settings and overrides is news.
 */
export function shapeSends(shape: ListingDefaults['shape']): ShapeSends {
  return { shape, fields: shape === 'flat' ? ['sku', 'overrides', 'title', ...SENT.flat] : ['sku', ...SENT.wrapped] };
}

/**
 * Whether a notice is news for this run. A field no row gives is, when the shape sends it and:
 * - it is the listing's content that nothing else can fill (images_source for the flat shape, title for wrapped);
 * - or it is a setting (marketplace, location key, policy ids) that the catalog has a column for (in the header, or
 *   renamed), while a default or the saved Marketplace configurations fill every row in its place.
 * A setting with no column is not news: a default fills it by design, or the run already says, once, that it is
 * missing for every row.
 */
export function noticeMatters(notice: CatalogNotice, defaults: ListingDefaults): boolean {
  if (notice.kind === 'mapping-proposal') return notice.proposal.some(({ field }) => proposalMatters(field, defaults));
  if (notice.kind !== 'empty-field') return true;
  const field = notice.field;
  if (!SENT[defaults.shape].includes(field)) return false;
  if (field === 'images_source' || field === 'title') return true;
  const named = notice.inHeader === true || (notice.column !== undefined && notice.column !== field);
  const filled = defaults[field] !== undefined || (field !== 'marketplace' && defaults.saved_defaults);
  return named && filled;
}

/** A proposed column matters when its field is the SKU, content only a column gives, or a setting no default gives. */
function proposalMatters(field: string, defaults: ListingDefaults): boolean {
  if (field === 'sku' || field === 'title' || field === 'images_source') return true;
  if (field === 'marketplace') return defaults.marketplace === undefined && defaults.marketplaces === undefined;
  return defaults.shape === 'flat' && !defaults.saved_defaults && defaults[field as keyof ListingDefaults] === undefined;
}
