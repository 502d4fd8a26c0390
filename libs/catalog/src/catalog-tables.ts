/** The compact tables the mock catalogue is generated from: brands x product types x lines. */

export const CATALOG_CATEGORIES = ['apparel', 'footwear', 'accessories'] as const;
export type CatalogCategory = (typeof CATALOG_CATEGORIES)[number];

export interface BrandRow {
  name: string;
  category: CatalogCategory;
  /** Multiplies the product type's price range: a premium label costs more for the same item. */
  priceTier: number;
  retailer: string;
}

export interface ProductTypeRow {
  name: string;
  category: CatalogCategory;
  /** Each line is one product per brand, named "<brand> <line> <type>". */
  lines: readonly string[];
  /** USD cents, before the brand's tier. */
  priceRange: readonly [number, number];
  sizes: readonly string[];
  palette: readonly string[];
}

const TOPS = ['XS', 'S', 'M', 'L', 'XL', 'XXL'];
const WAIST = ['28', '30', '32', '34', '36', '38'];
const MEN_SHOES = ['7', '7.5', '8', '8.5', '9', '9.5', '10', '10.5', '11', '12', '13'];
const WOMEN_SHOES = ['5', '5.5', '6', '6.5', '7', '7.5', '8', '8.5', '9', '10'];
const SHOES = [...new Set([...WOMEN_SHOES, ...MEN_SHOES])];
const ONE_SIZE = ['One Size'];

const NEUTRALS = ['Black', 'White', 'Heather Grey', 'Navy', 'Charcoal'];
const EARTH = ['Olive', 'Khaki', 'Tan', 'Rust', 'Forest Green', 'Brown'];
const BRIGHT = ['Red', 'Cobalt Blue', 'Sunflower Yellow', 'Coral', 'Teal'];

export const BRANDS: readonly BrandRow[] = [
  { name: 'Harbor & Pine', category: 'apparel', priceTier: 1, retailer: 'Harbor & Pine' },
  { name: 'Urban Loom', category: 'apparel', priceTier: 0.8, retailer: 'Citywide Department Store' },
  { name: 'Northfield Outfitters', category: 'apparel', priceTier: 1.25, retailer: 'Northfield Outfitters' },
  { name: 'Kestrel Athletics', category: 'apparel', priceTier: 1.1, retailer: 'Peak Sports Co.' },
  { name: 'Bramblewood', category: 'apparel', priceTier: 0.9, retailer: 'Citywide Department Store' },
  { name: 'Stride Theory', category: 'footwear', priceTier: 1.1, retailer: 'Peak Sports Co.' },
  { name: 'Summit Ridge', category: 'footwear', priceTier: 1.2, retailer: 'Trailside Gear' },
  { name: 'Cobalt Coast', category: 'footwear', priceTier: 0.85, retailer: 'Citywide Department Store' },
  { name: 'Alder & Ash', category: 'footwear', priceTier: 1.35, retailer: 'Alder & Ash' },
  { name: 'Meridian Goods', category: 'accessories', priceTier: 1, retailer: 'Meridian Goods' },
  { name: 'Trailhead Supply', category: 'accessories', priceTier: 0.9, retailer: 'Trailside Gear' },
  { name: 'Fieldnote Co.', category: 'accessories', priceTier: 1.2, retailer: 'Citywide Department Store' },
  { name: 'Lumen & Lark', category: 'accessories', priceTier: 1.1, retailer: 'Lumen & Lark' },
];

export const PRODUCT_TYPES: readonly ProductTypeRow[] = [
  {
    name: 'T-Shirt',
    category: 'apparel',
    lines: ["Men's Crew Neck", "Women's V-Neck"],
    priceRange: [1500, 3500],
    sizes: TOPS,
    palette: [...NEUTRALS, ...BRIGHT],
  },
  {
    name: 'Hoodie',
    category: 'apparel',
    lines: ["Men's Pullover", "Women's Zip-Up"],
    priceRange: [3900, 8900],
    sizes: TOPS,
    palette: [...NEUTRALS, ...EARTH],
  },
  {
    name: 'Jeans',
    category: 'apparel',
    lines: ["Men's Slim Fit", "Women's High-Rise"],
    priceRange: [4900, 12900],
    sizes: WAIST,
    palette: ['Indigo', 'Light Wash', 'Black', 'Stone Wash'],
  },
  {
    name: 'Chinos',
    category: 'apparel',
    lines: ["Men's Straight Fit", "Women's Relaxed"],
    priceRange: [3900, 8900],
    sizes: WAIST,
    palette: ['Khaki', 'Navy', 'Olive', 'Stone', 'Black'],
  },
  {
    name: 'Rain Jacket',
    category: 'apparel',
    lines: ["Men's Packable", "Women's Packable"],
    priceRange: [6900, 18900],
    sizes: TOPS,
    palette: ['Black', 'Navy', 'Red', 'Forest Green', 'Sunflower Yellow'],
  },
  {
    name: 'Sweater',
    category: 'apparel',
    lines: ["Men's Merino Crew", "Women's Cable Knit"],
    priceRange: [4900, 12900],
    sizes: TOPS,
    palette: [...NEUTRALS, ...EARTH],
  },
  {
    name: 'Dress',
    category: 'apparel',
    lines: ["Women's Wrap", "Women's Midi"],
    priceRange: [4500, 14900],
    sizes: TOPS,
    palette: ['Black', 'Navy', 'Coral', 'Emerald', 'Floral Print'],
  },
  {
    name: 'Leggings',
    category: 'apparel',
    lines: ["Women's High-Waist", "Women's 7/8 Length"],
    priceRange: [2900, 8900],
    sizes: TOPS,
    palette: ['Black', 'Charcoal', 'Navy', 'Plum', 'Olive'],
  },
  {
    name: 'Polo Shirt',
    category: 'apparel',
    lines: ["Men's Pique", "Women's Performance"],
    priceRange: [2500, 6900],
    sizes: TOPS,
    palette: [...NEUTRALS, ...BRIGHT],
  },
  {
    name: 'Puffer Jacket',
    category: 'apparel',
    lines: ["Men's Hooded", "Women's Long"],
    priceRange: [9900, 24900],
    sizes: TOPS,
    palette: ['Black', 'Navy', 'Olive', 'Cream', 'Burgundy'],
  },
  {
    name: 'Shorts',
    category: 'apparel',
    lines: ["Men's Running", "Women's Biker"],
    priceRange: [2000, 5500],
    sizes: TOPS,
    palette: [...NEUTRALS, 'Cobalt Blue', 'Coral'],
  },
  {
    name: 'Flannel Shirt',
    category: 'apparel',
    lines: ["Men's Button-Down", "Women's Oversized"],
    priceRange: [3500, 7900],
    sizes: TOPS,
    palette: ['Red Plaid', 'Green Plaid', 'Blue Plaid', 'Grey Plaid'],
  },
  {
    name: 'Winter Jacket',
    category: 'apparel',
    lines: ["Men's Quilted", "Women's Sherpa-Lined"],
    priceRange: [5900, 11900],
    sizes: TOPS,
    palette: ['Black', 'Charcoal', 'Navy', 'Olive', 'Camel', 'Burgundy'],
  },
  {
    name: 'Running Shoes',
    category: 'footwear',
    lines: ["Men's", "Women's"],
    priceRange: [7900, 17900],
    sizes: SHOES,
    palette: [...NEUTRALS, ...BRIGHT],
  },
  {
    name: 'Trail Running Shoes',
    category: 'footwear',
    lines: ["Men's", "Women's"],
    priceRange: [9900, 18900],
    sizes: SHOES,
    palette: [...EARTH, 'Black', 'Cobalt Blue'],
  },
  {
    name: 'Sneakers',
    category: 'footwear',
    lines: ["Men's Canvas", "Women's Leather"],
    priceRange: [4900, 12900],
    sizes: SHOES,
    palette: ['White', 'Black', 'Navy', 'Off-White', 'Red'],
  },
  {
    name: 'Hiking Boots',
    category: 'footwear',
    lines: ["Men's Waterproof", "Women's Waterproof"],
    priceRange: [11900, 22900],
    sizes: SHOES,
    palette: ['Brown', 'Tan', 'Black', 'Olive'],
  },
  {
    name: 'Chelsea Boots',
    category: 'footwear',
    lines: ["Men's Suede", "Women's Leather"],
    priceRange: [12900, 24900],
    sizes: SHOES,
    palette: ['Brown', 'Black', 'Tan', 'Taupe'],
  },
  {
    name: 'Loafers',
    category: 'footwear',
    lines: ["Men's Penny", "Women's Classic"],
    priceRange: [8900, 19900],
    sizes: SHOES,
    palette: ['Brown', 'Black', 'Burgundy', 'Tan'],
  },
  {
    name: 'Sandals',
    category: 'footwear',
    lines: ["Men's Sport", "Women's Slide"],
    priceRange: [2900, 8900],
    sizes: SHOES,
    palette: ['Black', 'Tan', 'Brown', 'White', 'Navy'],
  },
  {
    name: 'Slip-On Shoes',
    category: 'footwear',
    lines: ["Men's Knit", "Women's Canvas"],
    priceRange: [4500, 9900],
    sizes: SHOES,
    palette: [...NEUTRALS, 'Olive'],
  },
  {
    name: 'Backpack',
    category: 'accessories',
    lines: ['Everyday 20L', 'Travel 30L'],
    priceRange: [4900, 15900],
    sizes: ONE_SIZE,
    palette: ['Black', 'Navy', 'Olive', 'Charcoal', 'Rust'],
  },
  {
    name: 'Baseball Cap',
    category: 'accessories',
    lines: ['Classic', 'Performance'],
    priceRange: [1800, 3900],
    sizes: ONE_SIZE,
    palette: [...NEUTRALS, 'Khaki', 'Red'],
  },
  {
    name: 'Beanie',
    category: 'accessories',
    lines: ['Ribbed Knit', 'Merino Wool'],
    priceRange: [1500, 4500],
    sizes: ONE_SIZE,
    palette: ['Black', 'Heather Grey', 'Navy', 'Mustard', 'Forest Green'],
  },
  {
    name: 'Leather Belt',
    category: 'accessories',
    lines: ['Dress', 'Casual'],
    priceRange: [2900, 8900],
    sizes: ['S', 'M', 'L', 'XL'],
    palette: ['Black', 'Brown', 'Tan'],
  },
  {
    name: 'Wallet',
    category: 'accessories',
    lines: ['Bifold', 'Card Holder'],
    priceRange: [2500, 9900],
    sizes: ONE_SIZE,
    palette: ['Black', 'Brown', 'Tan', 'Navy'],
  },
  {
    name: 'Sunglasses',
    category: 'accessories',
    lines: ['Polarized Aviator', 'Round'],
    priceRange: [3900, 17900],
    sizes: ONE_SIZE,
    palette: ['Gold', 'Silver', 'Tortoise', 'Black'],
  },
  {
    name: 'Scarf',
    category: 'accessories',
    lines: ['Wool', 'Cashmere Blend'],
    priceRange: [2500, 12900],
    sizes: ONE_SIZE,
    palette: ['Camel', 'Grey', 'Navy', 'Red Plaid', 'Cream'],
  },
  {
    name: 'Watch',
    category: 'accessories',
    lines: ['Field', 'Minimalist'],
    priceRange: [7900, 29900],
    sizes: ONE_SIZE,
    palette: ['Silver', 'Gold', 'Black', 'Rose Gold'],
  },
  {
    name: 'Tote Bag',
    category: 'accessories',
    lines: ['Canvas', 'Leather'],
    priceRange: [2900, 19900],
    sizes: ONE_SIZE,
    palette: ['Natural', 'Black', 'Tan', 'Navy', 'Olive'],
  },
  {
    name: 'Socks',
    category: 'accessories',
    lines: ['Wool Hiking 3-Pack', 'Cotton Crew 6-Pack'],
    priceRange: [1400, 3200],
    sizes: ['S', 'M', 'L'],
    palette: ['Black', 'Heather Grey', 'White', 'Navy', 'Assorted'],
  },
  {
    name: 'Coffee Mug',
    category: 'accessories',
    lines: ['Insulated Travel', 'Stoneware'],
    priceRange: [1500, 4500],
    sizes: ONE_SIZE,
    palette: ['Black', 'White', 'Sage', 'Navy', 'Terracotta'],
  },
  {
    name: 'Coffee Grinder',
    category: 'accessories',
    lines: ['Hand Burr', 'Electric Burr'],
    priceRange: [3900, 12900],
    sizes: ONE_SIZE,
    palette: ['Black', 'Stainless Steel', 'Walnut', 'White'],
  },
];
