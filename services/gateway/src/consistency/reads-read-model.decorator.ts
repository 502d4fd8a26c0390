import { SetMetadata } from '@nestjs/common';

export const READS_READ_MODEL = 'shop:reads-read-model';

/**
 * Marks a command route whose handler reads the read model (not only its aggregates), so it waits
 * for the client's consistency token as every GET does.
 */
export const ReadsReadModel = () => SetMetadata(READS_READ_MODEL, true);
