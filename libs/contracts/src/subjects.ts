import { AggregateName, isAggregateName } from './aggregates';

/** Ids become one subject token: no dots, wildcards or whitespace. */
const aggregateIdPattern = /^[A-Za-z0-9_:-]{1,200}$/;

export function isValidAggregateId(id: string): boolean {
  return aggregateIdPattern.test(id);
}

export function subjectFor(prefix: string, aggregate: AggregateName, id: string): string {
  if (!isValidAggregateId(id))
    throw new Error(`invalid aggregate id for a subject token: ${JSON.stringify(id)}`);
  return `${prefix}.${aggregate}.${id}`;
}

export function aggregateWildcard(prefix: string, aggregate?: AggregateName): string {
  return aggregate ? `${prefix}.${aggregate}.*` : `${prefix}.>`;
}

export function parseSubject(prefix: string, subject: string): { aggregate: AggregateName; id: string } {
  const parts = subject.split('.');
  const [head, aggregate, id] = parts;
  if (parts.length !== 3 || head !== prefix || !aggregate || !id || !isAggregateName(aggregate)) {
    throw new Error(`not an event subject under "${prefix}": ${subject}`);
  }
  return { aggregate, id };
}
