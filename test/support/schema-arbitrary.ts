import fc from 'fast-check';
import { toJsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';

/**
 * fast-check values generated from a Valibot schema (through its JSON Schema), so
 * the property tests follow the schemas as they change. Values are meant to
 * be valid by the schema's shape and bounds, and hostile within them: strings
 * at their full length in 1- to 4-byte characters (lengths counted in UTF-16
 * code units, as Valibot counts them), numbers at and between their bounds with
 * any number of decimals, arrays from empty to long. Refinements a JSON
 * Schema cannot say (trim, time zones, cross-field rules) may still refuse a
 * value: that is a clear refusal, which the tests accept.
 */

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  minimum?: number;
  maximum?: number;
  propertyNames?: Schema;
  additionalProperties?: Schema | boolean;
  default?: unknown;
};

export type SchemaArbitraryOptions = {
  /** Values for properties by name (e.g. ids that must name existing locations); `name{}` gives a record's keys. */
  overrides?: Record<string, fc.Arbitrary<unknown>>;
  /** Longest array generated, whatever the schema allows (keeps a run's memory and time bounded). */
  maxArray?: number;
  /** Longest array for properties by name, below maxArray (e.g. few large items rather than many). */
  arrayCaps?: Record<string, number>;
};

type Options = Required<SchemaArbitraryOptions> & { hostileNumbers: boolean };

/** 1-, 2-, 3- and 4-byte characters, a NUL and a lone surrogate (no white space: names are trimmed). */
const CHARACTERS = ['a', 'Z', '7', '-', 'é', 'ß', 'Ж', '€', '中', 'ﾟ', '😀', '𝄞', '🍺', '\u0000', '\ud800'];

/** Short strings drawn character by character (so ids differ); long ones start so, then cycle over a few characters. */
function text(min: number, max: number): fc.Arbitrary<string> {
  const fits = (chars: string[]) => {
    let out = '';
    for (const char of chars) if (out.length + char.length <= max) out += char;
    return out.padEnd(min, 'a');
  };
  const short = fc
    .array(fc.constantFrom(...CHARACTERS), { minLength: Math.min(max, Math.max(min, 3)), maxLength: Math.min(max, min + 8) })
    .map(fits);
  const long = fc
    .tuple(short, fc.oneof(fc.constant(max), fc.integer({ min, max })), fc.subarray(CHARACTERS, { minLength: 1 }))
    .map(([start, length, pool]) =>
      fits([start, ...Array.from({ length }, (_, i) => pool[i % pool.length]!)]).slice(0, Math.max(min, length)),
    );
  return fc.oneof(short, long);
}

/** Bounds, integers and tenths; hostile: bounds and any double in range (tiny magnitudes, long fractions, whatever an unbounded schema lets through). */
function number(schema: Schema, integer: boolean, hostile: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? -Number.MAX_VALUE;
  const max = schema.maximum ?? Number.MAX_VALUE;
  const ints = fc.integer({
    min: Math.max(Math.ceil(min), Number.MIN_SAFE_INTEGER),
    max: Math.min(Math.floor(max), Number.MAX_SAFE_INTEGER),
  });
  const bounds = fc.constantFrom(Math.ceil(min), Math.floor(max), Math.max(Math.ceil(min), Math.min(Math.floor(max), 0)));
  if (integer) return fc.oneof(bounds, ints);
  if (hostile) return fc.oneof(bounds, fc.double({ min, max, noNaN: true, noDefaultInfinity: true }));
  return fc.oneof(
    bounds,
    ints,
    ints.chain((n) => fc.integer({ min: 0, max: 9 }).map((d) => Math.min(max, n + d / 10))),
  );
}

/** `name` is the property the value is for: overrides are looked up by it. */
function build(schema: Schema, options: Options, name = ''): fc.Arbitrary<unknown> {
  const override = options.overrides[name];
  if (override) return override;
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => build(s, options, name)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      return number(schema, schema.type === 'integer', options.hostileNumbers);
    case 'string':
      if (schema.format === 'date-time')
        return fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
      if (schema.format === 'uri') return fc.webUrl({ validSchemes: ['https'] });
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
      return text(schema.minLength ?? 0, schema.maxLength ?? 300);
    case 'array': {
      // Short, full or anything between.
      const max = Math.min(schema.maxItems ?? options.maxArray, options.arrayCaps[name] ?? options.maxArray);
      const min = Math.min(schema.minItems ?? 0, max);
      const length = fc.oneof(fc.integer({ min, max: Math.min(max, min + 2) }), fc.constant(max), fc.integer({ min, max }));
      return length.chain((n) => fc.array(build(schema.items ?? {}, options), { minLength: n, maxLength: n }));
    }
    case 'object':
      if (!schema.properties && typeof schema.additionalProperties === 'object') {
        const keys = options.overrides[`${name}{}`] ?? build(schema.propertyNames ?? { type: 'string', maxLength: 20 }, options);
        return fc.dictionary(keys as fc.Arbitrary<string>, build(schema.additionalProperties, options), { maxKeys: options.maxArray });
      }
      return object(schema, options);
    default:
      // An unconstrained field (v.unknown(), which the service ignores): left out.
      return fc.constant(undefined);
  }
}

function object(schema: Schema, options: Options): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const fields = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, build(property, options, name)]));
  // A field with a default may be left out, like an optional one.
  const requiredKeys = (schema.required ?? []).filter((k) => properties[k]!.default === undefined);
  return fc.record(fields, { requiredKeys }).map((value) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)));
}

/** One value in four has hostile numbers throughout (most are refused); the others keep to plain numbers. */
export function arbitraryFromSchema(schema: GenericSchema, options: SchemaArbitraryOptions = {}): fc.Arbitrary<unknown> {
  // Rules JSON Schema cannot state (checks, trimming) are left out, as the comment above says.
  const json = toJsonSchema(schema, { typeMode: 'input', errorMode: 'ignore' }) as Schema;
  const values = (hostileNumbers: boolean) =>
    build(json, {
      overrides: options.overrides ?? {},
      maxArray: options.maxArray ?? 12,
      arrayCaps: options.arrayCaps ?? {},
      hostileNumbers,
    });
  return fc.oneof({ weight: 3, arbitrary: values(false) }, { weight: 1, arbitrary: values(true) });
}
