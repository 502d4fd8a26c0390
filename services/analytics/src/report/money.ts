/** USD cents as dollars with two decimals, e.g. 123456 -> "1,234.56". */
export function dollars(cents: number): string {
  return (cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}
