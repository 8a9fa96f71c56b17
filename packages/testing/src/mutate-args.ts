import fc from "fast-check";
import { hostileString } from "./hostile-strings.js";
import { breaksSchema, type JsonSchema, jsonType, type KnownValues, valueFor } from "./json-schema-arb.js";

/** Arguments for one tools/call and whether they certainly break the published input schema. */
export interface ArgsCase {
  label: string;
  args: unknown;
  /** Certainly against the schema: the answer must be C6 invalid arguments. */
  breaks: boolean;
}

type Obj = Record<string, unknown>;

/** Sets a key as an own property, `__proto__` included (plain assignment would set the prototype). */
function withKey(obj: Obj, key: string, value: unknown): Obj {
  const copy: Obj = {};
  for (const [k, v] of Object.entries(obj))
    Object.defineProperty(copy, k, { value: v, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

function without(obj: Obj, key: string): Obj {
  const copy = { ...obj };
  delete copy[key];
  return copy;
}

const anyJson = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, "", "x", [], {}, [null], { a: 1 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Numbers around and beyond a schema's bounds, and the ones JSON can barely carry. */
function edgeNumbers(schema: JsonSchema): number[] {
  const out = [0, -0, -1, 0.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, Number.MIN_VALUE, 2 ** 31, -(2 ** 31)];
  for (const bound of [schema.minimum, schema.maximum, schema.exclusiveMinimum, schema.exclusiveMaximum]) {
    if (bound !== undefined) out.push(bound, bound - 1, bound + 1, bound - 0.5, bound + 0.5);
  }
  return out;
}

/**
 * Arguments generated from a tool's published schema, then mutated: wrong types, missing and
 * extra keys (`__proto__`, `constructor` too), numbers at and past their bounds, empty, huge,
 * control-character, unicode and query-syntax strings.
 */
export function argsCases(schema: JsonSchema, known: KnownValues): fc.Arbitrary<ArgsCase> {
  const valid = valueFor(schema, known) as fc.Arbitrary<Obj>;
  const props = Object.entries(schema.properties ?? {});
  const required = (schema.required ?? []).filter((k) => Object.hasOwn(schema.properties ?? {}, k));
  const numeric = props.filter(([, s]) => [s.type].flat().some((t) => t === "number" || t === "integer"));
  const strings = props.filter(([, s]) => [s.type].flat().includes("string"));
  const judge = (label: string, args: Obj): ArgsCase => ({ label, args, breaks: breaksSchema(args, schema) });

  const cases: Array<fc.Arbitrary<ArgsCase>> = [valid.map((args) => judge("valid", args))];
  if (props.length > 0) {
    cases.push(
      fc
        .tuple(valid, fc.constantFrom(...props), anyJson)
        .map(([args, [key], value]) => judge(`${key}: a ${jsonType(value)}`, withKey(args, key, value))),
    );
  }
  if (required.length > 0) {
    cases.push(
      fc.tuple(valid, fc.constantFrom(...required)).map(([args, key]) => judge(`no ${key}`, without(args, key))),
    );
  }
  cases.push(
    fc
      .tuple(
        valid,
        fc.oneof(
          fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "then"),
          fc.string({ maxLength: 10 }),
        ),
        anyJson,
      )
      .map(([args, key, value]) => judge(`extra key ${JSON.stringify(key)}`, withKey(args, key, value))),
  );
  if (numeric.length > 0) {
    cases.push(
      fc
        .tuple(valid, fc.constantFrom(...numeric))
        .chain(([args, [key, s]]) =>
          fc.constantFrom(...edgeNumbers(s)).map((n) => judge(`${key}: ${n}`, withKey(args, key, n))),
        ),
    );
  }
  if (strings.length > 0) {
    cases.push(
      fc
        .tuple(valid, fc.constantFrom(...strings))
        .chain(([args, [key, s]]) =>
          hostileString(s.maxLength ?? 200).map((text) => judge(`${key}: hostile string`, withKey(args, key, text))),
        ),
    );
  }
  // Several mutations at once.
  cases.push(
    fc.tuple(valid, fc.array(fc.tuple(fc.string({ maxLength: 6 }), anyJson), { maxLength: 4 })).map(([args, extra]) =>
      judge(
        "mixed",
        extra.reduce((acc, [k, v]) => withKey(acc, k, v), args),
      ),
    ),
  );
  return fc.oneof(...cases);
}
