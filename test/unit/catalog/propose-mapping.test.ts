import { describe, expect, it } from 'vitest';
import { proposeMapping } from '../../../src/catalog/mapping/propose.js';

const pairs = (columns: string[], map: Record<string, string> = {}) => proposeMapping(columns, map).map(({ field, column, typo }) => `${field}=${column}${typo ? ' (typo)' : ''}`);

describe('the proposed mapping of a header', () => {
  it('matches every column of a spreadsheet to its field at once, a typo told as one', () => {
    expect(pairs(['SKU_ID', 'Titel', 'Market', 'Location', 'Fulfillment', 'Payment', 'Return', 'Image'])).toEqual([
      'sku=SKU_ID',
      'title=Titel (typo)',
      'marketplace=Market',
      'merchant_location_key=Location',
      'fulfillment_policy_id=Fulfillment',
      'payment_policy_id=Payment',
      'return_policy_id=Return',
      'images_source=Image',
    ]);
  });

  it('leaves alone the fields a column already gives, by name, loosely or renamed, and the columns already read', () => {
    expect(pairs(['sku', 'Title ', 'Name', 'Market'], {})).toEqual(['marketplace=Market']);
    expect(pairs(['SKU_ID', 'Product Name', 'Shipping Policy', 'Returns'], { sku: 'SKU_ID' })).toEqual(['title=Product Name', 'fulfillment_policy_id=Shipping Policy', 'return_policy_id=Returns']);
  });

  it('gives each column to one field, the surest match first, and proposes nothing for unrelated columns', () => {
    // "Name" is a title's own name; "Product Title Long" only shares a word.
    expect(pairs(['Product Title Long', 'Name'])).toEqual(['title=Name']);
    expect(pairs(['Price', 'Size', 'Colour', 'Stock', 'Brand', 'Description'])).toEqual([]);
    expect(pairs(['Main Image', 'Warehouse'])).toEqual(['merchant_location_key=Warehouse', 'images_source=Main Image']);
    // A setting is proposed by its name only: a Shopify export's fulfillment service is no policy id.
    expect(pairs(['Variant SKU', 'Variant Fulfillment Service', 'Image Src'])).toEqual(['sku=Variant SKU', 'images_source=Image Src']);
  });
});
