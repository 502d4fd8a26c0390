/** A setting's test for a value the configuration may not hold at all. */
export type ForbiddenSettings = Record<string, (value: unknown) => boolean>;

/**
 * Each setting of `actual` that is not what `wanted` says, or that `forbidden` rules out, as
 * `name: actual (wanted)`. The server leaves false, zero and empty settings out of what it reports.
 */
export function settingDifferences(actual: object, wanted: object, forbidden: ForbiddenSettings): string[] {
  const reported = actual as Record<string, unknown>;
  const differences: string[] = [];
  for (const [key, value] of Object.entries(wanted)) {
    const current = reported[key] ?? (value === false || value === 0 ? value : undefined);
    if (JSON.stringify(current) !== JSON.stringify(value))
      differences.push(`${key}: ${JSON.stringify(current)} (wanted ${JSON.stringify(value)})`);
  }
  for (const [key, isForbidden] of Object.entries(forbidden)) {
    if (isForbidden(reported[key]))
      differences.push(`${key}: ${JSON.stringify(reported[key])} (wanted none)`);
  }
  return differences;
}
