// Error classes recognised by `instanceof` whichever copy of a package made the error: an app may
// load a package's ESM build and a dependency its CommonJS build, two classes of one name.

/** Where a branded class keeps its brand (an own static property). */
const BRAND = Symbol.for("toolshed.dev/brand");

function hasInstance(this: object, value: unknown): boolean {
  // A subclass that is not branded itself (a user's own) answers as JavaScript does.
  if (!Object.hasOwn(this, BRAND)) return Function.prototype[Symbol.hasInstance].call(this, value);
  const brand = (this as Record<symbol, symbol>)[BRAND] as symbol;
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    (value as Record<symbol, unknown>)[brand] === true
  );
}

/**
 * Brands an error class under a registry-wide name (`toolshed.dev/<name>`): its instances, and
 * those of its subclasses, carry the brand on their prototype, and `value instanceof cls` is true
 * for an instance of the class of that name from any loaded copy of the package.
 */
export function brandErrorClass(cls: abstract new (...args: never[]) => Error, name: string): void {
  const brand = Symbol.for(`toolshed.dev/${name}`);
  Object.defineProperty(cls.prototype, brand, { value: true });
  Object.defineProperty(cls, BRAND, { value: brand });
  Object.defineProperty(cls, Symbol.hasInstance, { value: hasInstance });
}
