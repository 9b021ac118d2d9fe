/**
 * A small JSON Schema validator for the subset the OpenAPI document uses (shared/api-schema-json.ts):
 * `$ref` into `components.schemas`, `anyOf`, `type` (one or a list), `const`, `enum`, `format:
 * date-time`, `properties` with `required`, `additionalProperties`, `items`. Strict where a
 * drift would hide: an object may hold no property its schema does not name (unless it is a
 * map, `additionalProperties`), so a field the daemon sends but the document forgets fails too.
 */

type Json = Record<string, unknown>;

export interface OpenApiDoc {
  components: { schemas: Record<string, Json> };
}

/** What is wrong with `value` against `schema`, one line each (`$.user.usage.usedBytes: …`); empty when it fits. */
export function schemaErrors(doc: OpenApiDoc, schema: Json, value: unknown, at = '$'): string[] {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = doc.components.schemas[name];
    if (!target) return [`${at}: unknown reference ${schema.$ref}`];
    return schemaErrors(doc, target, value, at);
  }
  if (Array.isArray(schema.anyOf)) {
    const tries = (schema.anyOf as Json[]).map((option) => schemaErrors(doc, option, value, at));
    return tries.some((errors) => errors.length === 0) ? [] : [`${at}: matches none of anyOf (${tries.map((e) => e[0]).join(' | ')})`];
  }
  if ('const' in schema && value !== schema.const) return [`${at}: ${JSON.stringify(value)} is not ${JSON.stringify(schema.const)}`];
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} is not one of the enum`];
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  if (types.length > 0 && !types.some((type) => hasType(value, type)))
    return [`${at}: ${JSON.stringify(value)} is not ${types.join(' or ')}`];
  if (
    schema.format === 'date-time' &&
    typeof value === 'string' &&
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)
  )
    return [`${at}: ${JSON.stringify(value)} is not an RFC 3339 date-time`];
  if (Array.isArray(value) && schema.items) return value.flatMap((item, i) => schemaErrors(doc, schema.items as Json, item, `${at}[${i}]`));
  if (isObject(value) && (schema.properties || schema.additionalProperties)) return objectErrors(doc, schema, value, at);
  return [];
}

function objectErrors(doc: OpenApiDoc, schema: Json, value: Json, at: string): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const errors: string[] = [];
  for (const name of (schema.required ?? []) as string[]) if (!(name in value)) errors.push(`${at}.${name}: missing`);
  for (const [name, field] of Object.entries(value)) {
    const fieldSchema = properties[name] ?? (isObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
    if (fieldSchema) errors.push(...schemaErrors(doc, fieldSchema, field, `${at}.${name}`));
    else errors.push(`${at}.${name}: sent, but not in the schema`);
  }
  return errors;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      return typeof value === type;
  }
}
