/**
 * The JSON Schema of a described answer (shared/api-schema.ts), as OpenAPI 3.1 embeds it: a
 * named schema is written once into `components` and referred to by `$ref` wherever it is used.
 */
import type { AnySchema, SchemaNode } from './api-schema.js';

export type JsonSchema = Record<string, unknown>;

const REF_BASE = '#/components/schemas/';

/** `schema` as JSON Schema; each named schema it reaches is added to `components` (once). */
export function toJsonSchema(schema: AnySchema, components: Record<string, JsonSchema>): JsonSchema {
  if (schema.name === undefined) return withDescription(nodeSchema(schema.node, components), schema.description);
  if (!(schema.name in components)) {
    // Reserved first, so that a schema reaching itself again refers to it rather than recursing.
    components[schema.name] = {};
    components[schema.name] = withDescription(nodeSchema(schema.node, components), schema.description);
  }
  return { $ref: `${REF_BASE}${schema.name}` };
}

function withDescription(json: JsonSchema, description: string | undefined): JsonSchema {
  return description === undefined ? json : { ...json, description };
}

const PRIMITIVE_TYPES: Partial<Record<SchemaNode['kind'], (node: SchemaNode) => string>> = {
  string: () => 'string',
  number: (node) => ((node as { integer: boolean }).integer ? 'integer' : 'number'),
  boolean: () => 'boolean',
};

function nodeSchema(node: SchemaNode, components: Record<string, JsonSchema>): JsonSchema {
  const sub = (schema: AnySchema) => toJsonSchema(schema, components);
  switch (node.kind) {
    case 'string':
      return { type: 'string', ...(node.format ? { format: node.format } : {}), ...(node.enum ? { enum: [...node.enum] } : {}) };
    case 'number':
      return { type: node.integer ? 'integer' : 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'literal':
      return { type: typeof node.value, const: node.value };
    case 'null':
      return { type: 'null' };
    case 'array':
      return { type: 'array', items: sub(node.items) };
    case 'map':
      return { type: 'object', additionalProperties: sub(node.values) };
    case 'object': {
      // No fields: any object (the OpenAPI document's own operations, described no further).
      if (Object.keys(node.fields).length === 0) return { type: 'object' };
      const required = Object.keys(node.fields).filter((name) => !node.optional.includes(name));
      const properties = Object.fromEntries(Object.entries(node.fields).map(([name, schema]) => [name, sub(schema)]));
      return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
    }
    case 'union': {
      // `T | null` of a plain string, number or boolean is written as a type list (`["string", "null"]`), as usual.
      const [first, second] = node.of;
      const primitive = first && !first.name && PRIMITIVE_TYPES[first.node.kind];
      if (node.of.length === 2 && second.node.kind === 'null' && primitive && !(first.node.kind === 'string' && first.node.enum)) {
        const inner = withDescription(nodeSchema(first.node, components), first.description);
        return { ...inner, type: [primitive(first.node), 'null'] };
      }
      return { anyOf: node.of.map(sub) };
    }
  }
}
