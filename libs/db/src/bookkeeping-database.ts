import { Generated } from 'kysely';

export interface ProjectionCheckpointsTable {
  projection: string;
  position: number;
  updated_at: Generated<Date>;
}

export interface ParkedSubjectsTable {
  projection: string;
  subject: string;
  sequence: number;
  error: string;
  attempts: number;
  parked_at: Generated<Date>;
}

export interface ParkedEventsTable {
  projection: string;
  subject: string;
  sequence: number;
}

/** Projection bookkeeping, present in every schema that projections write into. */
export interface BookkeepingDatabase {
  projection_checkpoints: ProjectionCheckpointsTable;
  parked_subjects: ParkedSubjectsTable;
  parked_events: ParkedEventsTable;
}

/** Tables that are bookkeeping, not projections: never compared between live and rebuilt. */
export const bookkeepingTables = ['projection_checkpoints', 'parked_subjects', 'parked_events'] as const;
