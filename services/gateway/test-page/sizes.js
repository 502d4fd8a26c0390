/**
 * The size a product card preselects: the first of the shopper's saved sizes (footwear, bottoms,
 * tops) that the product comes in, else the product's first size.
 */
export function preselectedSize(productSizes, savedSizes) {
  if (!productSizes || productSizes.length === 0) return undefined;
  const saved = savedSizes
    ? [savedSizes.footwearSize, savedSizes.bottomsSize, savedSizes.topsSize].filter(Boolean)
    : [];
  const offered = (size) =>
    productSizes.find((option) => option.trim().toLowerCase() === size.trim().toLowerCase());
  for (const size of saved) {
    const match = offered(size);
    if (match) return match;
  }
  return productSizes[0];
}
