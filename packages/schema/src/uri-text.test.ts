import { InvalidArgumentsError } from "@toolshed/errors";
import { describe, expect, it } from "vitest";
import { decodeUriVariable } from "./uri-text.js";

function refusal(raw: string): InvalidArgumentsError {
  try {
    decodeUriVariable(raw, "title", "note title");
  } catch (error) {
    if (error instanceof InvalidArgumentsError) return error;
    throw error;
  }
  throw new Error(`${raw} was decoded`);
}

describe("decodeUriVariable", () => {
  it("decodes percent-encoded UTF-8, as encodeURIComponent writes it", () => {
    expect(decodeUriVariable(encodeURIComponent("café / 1"), "title", "note title")).toBe("café / 1");
    expect(decodeUriVariable("plain", "title", "note title")).toBe("plain");
  });

  it("a broken escape asks for encodeURIComponent", () => {
    expect(refusal("50%off").message).toBe(
      'title in the URI is not valid percent-encoding (got "50%off"); encode it with encodeURIComponent',
    );
  });

  it("bytes that are not UTF-8, or half a surrogate pair, are named as such", () => {
    for (const raw of ["%ED%A0%80", "%C3%28"]) {
      const error = refusal(raw);
      expect(error.message).toContain(`does not decode to text (got "${raw}")`);
      expect(error.issues).toEqual([{ path: "title", message: "must be percent-encoded UTF-8 text" }]);
    }
  });

  it("a NUL is refused with the noun it cannot be", () => {
    expect(refusal("a%00b").message).toBe("title in the URI holds a NUL character (%00), which no note title has");
  });
});
