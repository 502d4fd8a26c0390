/**
 * Core NATS subject on which a projection announces its checkpoint after each commit. It
 * sits outside the event stream's `<prefix>.>` so announcements are never stored as events.
 */
export function checkpointSubject(subjectPrefix: string, projection: string): string {
  return `_projections.${subjectPrefix}.${projection}`;
}

export function consumerNameFor(projection: string): string {
  return `projection_${projection}`;
}
