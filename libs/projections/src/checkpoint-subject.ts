/**
 * Core NATS subject on which a projection announces its checkpoint after each commit. It
 * sits outside the event stream's `<prefix>.>` so announcements are never stored as events.
 */
export function checkpointSubject(subjectPrefix: string, projection: string): string {
  return `_projections.${subjectPrefix}.${projection}`;
}

/** A projection's durable consumer, under its process's owner prefix (`<owner>_projection_<name>`). */
export function consumerNameFor(store: { consumerName(name: string): string }, projection: string): string {
  return store.consumerName(`projection_${projection}`);
}
