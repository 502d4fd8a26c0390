import { z } from 'zod';
import { EventDefinition, Upcaster } from './event-definition';
import { EventEnvelope } from './event-envelope';
import { dataKeyIdFor, erasedValueFor } from './personal-data';

/** A top-level data field holding personal data, and what it reads as once erased. */
export interface PersonalField {
  readonly name: string;
  readonly erased: unknown;
}

export class UnknownEventTypeError extends Error {
  constructor(readonly type: string) {
    super(`unknown event type: ${type}`);
  }
}

export class EventDataError extends Error {
  constructor(
    readonly type: string,
    readonly version: number,
    readonly issues: z.core.$ZodIssue[],
  ) {
    super(
      `invalid data for ${type} v${version}: ${issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
}

/**
 * The registry of every event type at its current version, plus the upcasters that bring
 * older stored versions up to it. Readers always see current-version data.
 */
export class EventCatalogue {
  private readonly byType = new Map<string, EventDefinition>();
  private readonly upcasters = new Map<string, Upcaster>();
  private readonly personal = new Map<string, readonly PersonalField[]>();
  private readonly fields = new Map<string, readonly string[]>();

  constructor(definitions: readonly EventDefinition[], upcasters: readonly Upcaster[] = []) {
    for (const definition of definitions) {
      if (this.byType.has(definition.type)) throw new Error(`event type defined twice: ${definition.type}`);
      this.byType.set(definition.type, definition);
      this.personal.set(definition.type, personalFieldsOf(definition));
      this.fields.set(
        definition.type,
        definition.schema instanceof z.ZodObject ? Object.keys(definition.schema.shape as object) : [],
      );
    }
    for (const upcaster of upcasters) {
      const current = this.definition(upcaster.type);
      if (upcaster.fromVersion >= current.version) {
        throw new Error(
          `upcaster for ${upcaster.type} v${upcaster.fromVersion} is not older than v${current.version}`,
        );
      }
      this.upcasters.set(`${upcaster.type}@${upcaster.fromVersion}`, upcaster);
    }
    for (const definition of definitions) {
      for (let v = 1; v < definition.version; v++) {
        if (!this.upcasters.has(`${definition.type}@${v}`)) {
          throw new Error(`${definition.type} is at v${definition.version} but has no upcaster from v${v}`);
        }
      }
    }
  }

  get definitions(): EventDefinition[] {
    return [...this.byType.values()];
  }

  has(type: string): boolean {
    return this.byType.has(type);
  }

  /** The fields written encrypted under the aggregate's data key; empty for most types. */
  personalFields(type: string): readonly PersonalField[] {
    this.definition(type);
    return this.personal.get(type)!;
  }

  /** The top-level fields of the type's data in its schema's order; empty when its data is no object. */
  fieldNames(type: string): readonly string[] {
    this.definition(type);
    return this.fields.get(type)!;
  }

  definition(type: string): EventDefinition {
    const definition = this.byType.get(type);
    if (!definition) throw new UnknownEventTypeError(type);
    return definition;
  }

  /** Validates data about to be appended; only the current version is ever written. */
  validate(type: string, data: unknown): unknown {
    const definition = this.definition(type);
    const result = definition.schema.safeParse(data);
    if (!result.success) throw new EventDataError(type, definition.version, result.error.issues);
    return result.data;
  }

  /** Brings a stored envelope's data to the current version and validates it. */
  upcast(envelope: Pick<EventEnvelope, 'type' | 'version' | 'data'>): { version: number; data: unknown } {
    const definition = this.definition(envelope.type);
    if (envelope.version > definition.version) {
      throw new Error(
        `${envelope.type} v${envelope.version} is newer than this build knows (v${definition.version})`,
      );
    }
    let data = envelope.data;
    for (let v = envelope.version; v < definition.version; v++) {
      data = this.upcasters.get(`${envelope.type}@${v}`)!.up(data);
    }
    return { version: definition.version, data: this.validate(envelope.type, data) };
  }
}

/** Personal fields are top-level keys of an object schema, so sealing never walks nested data. */
function personalFieldsOf(definition: EventDefinition): readonly PersonalField[] {
  if (definition.personalData.length === 0) return [];
  dataKeyIdFor(definition.aggregate, 'probe');
  if (!(definition.schema instanceof z.ZodObject)) {
    throw new Error(`${definition.type}: personal data needs an object schema`);
  }
  const shape = definition.schema.shape as Record<string, z.ZodType>;
  return definition.personalData.map((name) => {
    const field = shape[name];
    if (!field) throw new Error(`${definition.type}: personal field ${name} is not a top-level field`);
    return { name, erased: erasedValueFor(field, `${definition.type}.${name}`) };
  });
}
