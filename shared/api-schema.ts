/**
 * A tiny schema builder for the API's answers: each record is described once, and both its
 * JSON Schema (the OpenAPI document, daemon/http/openapi.ts) and its TypeScript type
 * (`Infer<typeof X>`, shared/types.ts) come from that one description, so the two cannot
 * drift. Only what the answers need: strings, numbers, booleans, literals, null, arrays,
 * objects with required and optional fields, maps, unions, and names (`named`), which the
 * document turns into `#/components/schemas/<name>` references.
 */

declare const TYPE: unique symbol;

/** The JSON Schema (2020-12, as OpenAPI 3.1 has it) of one node, before names become references. */
export type SchemaNode =
  | { kind: 'string'; format?: string; enum?: readonly string[] }
  | { kind: 'number'; integer: boolean }
  | { kind: 'boolean' }
  | { kind: 'literal'; value: string | boolean | number }
  | { kind: 'null' }
  | { kind: 'array'; items: AnySchema }
  | { kind: 'object'; fields: Readonly<Record<string, AnySchema>>; optional: readonly string[] }
  | { kind: 'map'; values: AnySchema }
  | { kind: 'union'; of: readonly AnySchema[] };

/** A described value whose TypeScript type is `T` (a phantom: it exists only for the compiler). */
export interface Schema<T> {
  readonly node: SchemaNode;
  /** Its name in `#/components/schemas`, if it has one. */
  readonly name?: string;
  readonly description?: string;
  readonly [TYPE]: T;
}

export type AnySchema = Schema<unknown>;

/** The TypeScript type a schema describes. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

/** A field an object may leave out (sent only sometimes). */
export interface Optional<T> {
  readonly optionalOf: Schema<T>;
}

type Field = AnySchema | Optional<unknown>;
type Flatten<T> = { [K in keyof T]: T[K] } & {};
type RequiredKeys<F> = { [K in keyof F]: F[K] extends Optional<unknown> ? never : K }[keyof F];
type FieldType<F> = F extends Optional<infer T> ? T : F extends Schema<infer T> ? T : never;
export type ObjectOf<F> = Flatten<
  { [K in RequiredKeys<F>]: FieldType<F[K]> } & { [K in Exclude<keyof F, RequiredKeys<F>>]?: FieldType<F[K]> }
>;

const make = <T>(node: SchemaNode, description?: string): Schema<T> => ({ node, description }) as Schema<T>;

export const string = (description?: string, format?: string): Schema<string> => make({ kind: 'string', format }, description);
/** An ISO 8601 instant, as `toISOString()` writes it. */
export const dateTime = (description?: string): Schema<string> => string(description, 'date-time');
export const integer = (description?: string): Schema<number> => make({ kind: 'number', integer: true }, description);
export const number = (description?: string): Schema<number> => make({ kind: 'number', integer: false }, description);
export const boolean = (description?: string): Schema<boolean> => make({ kind: 'boolean' }, description);
export const literal = <const V extends string | boolean | number>(value: V, description?: string): Schema<V> =>
  make({ kind: 'literal', value }, description);
/** One of a list of strings (`as const` lists: CHANGE_EVENT_TYPES, the error codes…). */
export const oneOf = <const V extends string>(values: readonly V[], description?: string): Schema<V> =>
  make({ kind: 'string', enum: values }, description);
export const array = <T>(items: Schema<T>, description?: string): Schema<T[]> => make({ kind: 'array', items }, description);
export const nullable = <T>(schema: Schema<T>, description?: string): Schema<T | null> =>
  make({ kind: 'union', of: [schema, make({ kind: 'null' })] }, description ?? schema.description);
export const optional = <T>(schema: Schema<T>): Optional<T> => ({ optionalOf: schema });
/** An object with string keys chosen by the data (checks by name), all of one type. */
export const map = <T>(values: Schema<T>, description?: string): Schema<Record<string, T>> => make({ kind: 'map', values }, description);
export const union = <S extends readonly AnySchema[]>(of: S, description?: string): Schema<Infer<S[number]>> =>
  make({ kind: 'union', of }, description);

export function object<const F extends Record<string, Field>>(fields: F, description?: string): Schema<ObjectOf<F>> {
  const shown: Record<string, AnySchema> = {};
  const optionalNames: string[] = [];
  for (const [name, field] of Object.entries(fields)) {
    if ('optionalOf' in field) {
      shown[name] = field.optionalOf;
      optionalNames.push(name);
    } else shown[name] = field;
  }
  return make({ kind: 'object', fields: shown, optional: optionalNames }, description);
}

/** The fields of an object schema, to build another from (`{...fieldsOf(MsgSchema), user: UserSchema}`). */
export function fieldsOf<T>(schema: Schema<T>): { [K in keyof T]-?: undefined extends T[K] ? Optional<T[K]> : Schema<T[K]> } {
  if (schema.node.kind !== 'object') throw new Error('fieldsOf: not an object schema');
  const { fields, optional: optionalNames } = schema.node;
  const out = Object.fromEntries(Object.entries(fields).map(([k, s]) => [k, optionalNames.includes(k) ? optional(s) : s]));
  return out as never;
}

/** The same schema under a name: the document shows it once, in `#/components/schemas`, and refers to it. */
export const named = <T>(name: string, schema: Schema<T>): Schema<T> => ({ ...schema, name }) as Schema<T>;

/** Whether two types are the same (for compile-time checks that a hand-written type matches its schema). */
export type Equals<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
