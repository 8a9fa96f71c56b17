import { brandErrorClass } from "@toolshed/errors/internal";
/** The packs the servers can serve, in the order they are listed. */
export const PACK_NAMES = ["notes", "tickets", "crm"] as const;
export type PackName = (typeof PACK_NAMES)[number];

/** A value a user passed that cannot work; the message says what would. */
export class PackConfigError extends Error {}
brandErrorClass(PackConfigError, "PackConfigError");

/** Reads `notes,tickets` (spaces and case ignored); unknown names fail with the valid list. */
export function parsePackList(value: string): PackName[] {
  const names = value
    .split(",")
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== "");
  if (names.length === 0)
    throw new PackConfigError(`no packs given; use a comma-separated list of ${PACK_NAMES.join(", ")}`);
  const unknown = names.filter((n) => !(PACK_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new PackConfigError(
      `unknown pack ${unknown.map((n) => `"${n}"`).join(", ")}; choose from ${PACK_NAMES.join(", ")}`,
    );
  }
  return [...new Set(names)] as PackName[];
}
