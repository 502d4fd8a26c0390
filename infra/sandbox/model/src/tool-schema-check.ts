import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { invalidRequest } from './openai-error';

const draft07 = new Ajv({ strict: false, validateSchema: false });
const draft2020 = new Ajv2020({ strict: false, validateSchema: false });
const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';
const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Strict mode's rules, at every object level: every property required, no others allowed. */
function strictProblem(schema: JsonObject, path: string): string | undefined {
  if (schema.type === 'object' || isObject(schema.properties)) {
    const properties = isObject(schema.properties) ? Object.keys(schema.properties) : [];
    if (schema.additionalProperties !== false)
      return `In context=(${path}), 'additionalProperties' is required to be supplied and to be false.`;
    const required = Array.isArray(schema.required) ? schema.required : [];
    const missing = properties.find((name) => !required.includes(name));
    if (missing !== undefined)
      return `In context=(${path}), 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
  }
  const children: [string, unknown][] = [
    ...Object.entries(isObject(schema.properties) ? schema.properties : {}).map(
      ([name, child]): [string, unknown] => [`${path}, 'properties', '${name}'`, child],
    ),
    [`${path}, 'items'`, schema.items],
    ...(['anyOf', 'oneOf', 'allOf'] as const).flatMap((key) =>
      (Array.isArray(schema[key]) ? (schema[key] as unknown[]) : []).map(
        (child, index): [string, unknown] => [`${path}, '${key}', '${index}'`, child],
      ),
    ),
  ];
  for (const [childPath, child] of children) {
    const problem = isObject(child) ? strictProblem(child, childPath) : undefined;
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Refuses a function's `parameters` the way OpenAI does: it must be a valid JSON Schema (against its
 * draft's meta-schema) of an object, and under `strict` obey strict mode's rules.
 */
export function checkToolSchema(name: string, parameters: unknown, strict: boolean, param: string): void {
  const invalid = (reason: string) =>
    invalidRequest(`Invalid schema for function '${name}': ${reason}`, param, 'invalid_function_parameters');
  if (!isObject(parameters)) throw invalid('schema must be a JSON Schema object.');
  const declared = parameters.$schema;
  if (
    declared !== undefined &&
    declared !== DRAFT_2020 &&
    !(typeof declared === 'string' && DRAFT_07.test(declared))
  )
    throw invalid(`unsupported $schema ${JSON.stringify(declared)}.`);
  const validator = declared === DRAFT_2020 ? draft2020 : draft07;
  if (!validator.validateSchema(parameters)) {
    const [first] = validator.errors ?? [];
    throw invalid(`${first?.instancePath || '(root)'} ${first?.message ?? 'is not a valid JSON Schema'}.`);
  }
  if (parameters.type !== 'object')
    throw invalid(
      `schema must be a JSON Schema of 'type: "object"', got 'type: "${String(parameters.type)}"'.`,
    );
  if (strict) {
    const problem = strictProblem(parameters, 'root');
    if (problem) throw invalid(problem);
  }
}
