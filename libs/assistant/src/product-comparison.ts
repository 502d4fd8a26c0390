import { productCardOf, type ProductSummary } from '@shop/product-search';
import { formatUsd } from './offline/money';
import type { ShoppingToolSuccess } from './tool-schemas';

const count = (n: number) => n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const NOT_LISTED = 'not listed';
const listed = (values: readonly string[] | undefined) =>
  values && values.length > 0 ? values.join(', ') : NOT_LISTED;

/** A list's value for telling alike from different: the same colours in another order are alike. */
const asSet = (values: readonly string[] | undefined) =>
  [...(values ?? [])]
    .map((value) => value.toLowerCase())
    .sort()
    .join('|');

/** The aspects a shopper compares products by, each as the text the answer shows (and, for lists, what counts as alike). */
const ASPECTS: readonly [
  string,
  (product: ProductSummary) => string,
  ((product: ProductSummary) => string)?,
][] = [
  ['price', (product) => formatUsd(product.price)],
  ['rating', (product) => `${product.rating}/5`],
  ['reviews', (product) => count(product.reviewCount)],
  ['sizes', (product) => listed(product.sizes), (product) => asSet(product.sizes)],
  ['colors', (product) => listed(product.colors), (product) => asSet(product.colors)],
  ['brand', (product) => product.brand],
  ['retailer', (product) => product.retailer.replace(/\.$/, '')],
  ['category', (product) => product.category],
];

/** What compareProducts answers: the products side by side, split into what differs and what they share. */
export function compareProductsOutput(
  products: readonly ProductSummary[],
): ShoppingToolSuccess<'compareProducts'> {
  const differences: { aspect: string; values: string[] }[] = [];
  const shared: { aspect: string; value: string }[] = [];
  for (const [aspect, valueOf, keyOf = valueOf] of ASPECTS) {
    const values = products.map(valueOf);
    const keys = products.map(keyOf);
    if (!keys.every((key) => key === keys[0])) differences.push({ aspect, values });
    // What none of them lists is not something they share.
    else if (values[0] !== undefined && values[0] !== NOT_LISTED) shared.push({ aspect, value: values[0] });
  }
  return { success: true, products: products.map(productCardOf), differences, shared };
}
