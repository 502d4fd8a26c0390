import type { TextScanner } from './text-scanner';

export interface PriceRange {
  minPrice?: number;
  maxPrice?: number;
}

const NUMBER = String.raw`(\d+(?:\.\d{1,2})?)`;
const UNIT = String.raw`(?:\s*(?:\$|dollars?|usd|bucks))`;
/** An amount that says it is money: "$80", "80 dollars", "80$". */
const MONEY = String.raw`(?:\$\s*${NUMBER}${UNIT}?|${NUMBER}${UNIT})`;
/** An amount after a price word ("under 80"), where the word already says it is money. */
const AMOUNT = String.raw`\$?\s*${NUMBER}${UNIT}?`;

const pattern = (source: string) => new RegExp(source);

const BETWEEN = pattern(String.raw`\bbetween\s+${AMOUNT}\s+(?:and|to|-)\s+${AMOUNT}`);
const FROM_TO = pattern(String.raw`\bfrom\s+${MONEY}\s*(?:to|-)\s*${AMOUNT}`);
const DASHED = pattern(
  String.raw`\$\s*${NUMBER}\s*(?:-|to)\s*\$?\s*${NUMBER}|\b${NUMBER}\s*(?:-|to)\s*${NUMBER}${UNIT}`,
);
const AT_MOST = pattern(
  String.raw`\b(?:under|below|less than|cheaper than|up to|no more than|not more than|at most|max(?:imum)?(?: of)?|within|budget(?: of| is)?)\s+${AMOUNT}`,
);
const AT_MOST_AFTER = pattern(String.raw`${MONEY}\s+(?:or less|or under|or cheaper|max(?:imum)?|tops)\b`);
const AT_LEAST = pattern(
  String.raw`\b(?:over|above|more than|at least|min(?:imum)?(?: of)?|starting at)\s+${AMOUNT}|\bfrom\s+${MONEY}`,
);
const AT_LEAST_AFTER = pattern(String.raw`${MONEY}\s*(?:or more|and up|and above|\+)`);

/** The numbers a match captured, whichever alternative of the pattern matched. */
function amounts(match: RegExpExecArray): number[] {
  return match
    .slice(1)
    .filter((group): group is string => group !== undefined)
    .map(Number);
}

/**
 * Price limits in USD, as shoppers say them: "under $80", "between 50 and 120 dollars", "$50-$120",
 * "$30 or less", "over $100". A range said the wrong way round is put right.
 */
export function takePriceRange(scanner: TextScanner): PriceRange {
  for (const range of [BETWEEN, FROM_TO, DASHED]) {
    const match = scanner.take(range);
    if (!match) continue;
    const [low = 0, high = 0] = amounts(match);
    return { minPrice: Math.min(low, high), maxPrice: Math.max(low, high) };
  }
  const limits: PriceRange = {};
  const atMost = scanner.take(AT_MOST) ?? scanner.take(AT_MOST_AFTER);
  if (atMost) limits.maxPrice = amounts(atMost)[0];
  const atLeast = scanner.take(AT_LEAST) ?? scanner.take(AT_LEAST_AFTER);
  if (atLeast) limits.minPrice = amounts(atLeast)[0];
  return limits;
}
