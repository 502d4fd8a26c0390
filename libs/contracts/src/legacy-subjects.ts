import { AggregateName, isAggregateName } from './aggregates';
import { isValidAggregateId } from './subjects';

/**
 * The previous layout of event subjects, `<prefix>.<aggregate>.<id>`, which streams made before
 * SUBJECT_LAYOUT still hold: only the layout migration (`npm run migrate-layout`) reads it.
 */
export function parseLegacySubject(
  prefix: string,
  subject: string,
): { aggregate: AggregateName; id: string } | null {
  const [head, aggregate, id, ...rest] = subject.split('.');
  if (rest.length > 0 || head !== prefix || !aggregate || !isAggregateName(aggregate)) return null;
  return id && isValidAggregateId(id) ? { aggregate, id } : null;
}
