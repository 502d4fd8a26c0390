/** Postgres truncates longer identifiers silently; a truncated name could hit another schema. */
const maxIdentifier = 63;

/** A UTC stamp to the second, e.g. 20260102t030405: sorts by time and is a valid identifier part. */
export function timeStamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, '').replace('T', 't').slice(0, 15);
}

export function derivedSchema(
  live: string,
  kind: 'rebuild' | 'old' | 'verify' | 'at',
  suffix: string,
): string {
  const name = `${live}_${kind}_${suffix}`;
  if (name.length > maxIdentifier)
    throw new Error(
      `schema name ${name} is longer than ${maxIdentifier} characters; shorten READ_MODEL_SCHEMA`,
    );
  return name;
}
