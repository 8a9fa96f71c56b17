import { DefinitionError } from "./definition-error.js";

// Icons and `_meta` of a tool, prompt, resource or template, published in its list entry as the
// 2025-11-25 and 2026-07-28 schemas have them, checked when the definition is made (C13).

/** An icon a client may show beside the definition (`Icon` of the MCP schema). */
export interface Icon {
  /** An `https:`/`http:` URL, or a `data:` URI with Base64 image data. */
  src: string;
  /** The image type when the source does not say it: `image/png`, `image/svg+xml`, … */
  mimeType?: string;
  /** Sizes it fits, `WxH` (`"48x48"`) or `"any"` for scalable images. */
  sizes?: string[];
  /** The background it is drawn for. */
  theme?: "light" | "dark";
}

/** What every definition may add to its list entry. */
export interface ListingExtras {
  /** Icons a client may show beside it. */
  icons?: Icon[];
  /**
   * Metadata for clients, published as `_meta`: keys are `name` or `prefix/name` (reverse DNS such
   * as `com.example/`); prefixes whose second label is `modelcontextprotocol` or `mcp` are MCP's.
   */
  _meta?: Record<string, unknown>;
}

const ICON_KEYS = new Set(["src", "mimeType", "sizes", "theme"]);
const SIZE = /^(\d{1,5}x\d{1,5}|any)$/;
const MIME = /^[a-z]+\/[a-z0-9.+-]+$/i;
const LABEL = /^[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?$/;
const NAME = /^([A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?)?$/;
const MAX_ICONS = 16;

function iconProblem(icon: unknown): string | undefined {
  if (typeof icon !== "object" || icon === null || Array.isArray(icon))
    return "must be an object { src, mimeType?, sizes?, theme? }";
  const i = icon as Record<string, unknown>;
  const extra = Object.keys(i).filter((k) => !ICON_KEYS.has(k));
  if (extra.length > 0) return `has unknown keys ${extra.join(", ")}; an icon has src, mimeType, sizes and theme`;
  if (typeof i.src !== "string") return "src must be a URL (https://…) or a data: URI";
  let url: URL;
  try {
    url = new URL(i.src);
  } catch {
    return `src must be a URL (https://…) or a data: URI (got ${JSON.stringify(i.src.slice(0, 80))})`;
  }
  if (url.protocol === "data:") {
    if (!/^data:[^,;]+(;[^,;]+)*;base64,[A-Za-z0-9+/]+=*$/.test(i.src)) {
      return "src as a data: URI must hold Base64 image data (data:image/png;base64,…)";
    }
  } else if (url.protocol !== "https:" && url.protocol !== "http:") {
    return `src must be an https:, http: or data: URI (got ${url.protocol})`;
  }
  if (i.mimeType !== undefined && (typeof i.mimeType !== "string" || !MIME.test(i.mimeType))) {
    return `mimeType must be a MIME type such as "image/png" (got ${JSON.stringify(i.mimeType)})`;
  }
  if (
    i.sizes !== undefined &&
    (!Array.isArray(i.sizes) || !i.sizes.every((s) => typeof s === "string" && SIZE.test(s)))
  ) {
    return `sizes must be a list of "WxH" (such as "48x48") or "any" (got ${JSON.stringify(i.sizes)})`;
  }
  if (i.theme !== undefined && i.theme !== "light" && i.theme !== "dark") {
    return `theme must be "light" or "dark" (got ${JSON.stringify(i.theme)})`;
  }
  return undefined;
}

/** Why a `_meta` key cannot be used, or undefined. */
export function metaKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf("/");
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined) {
    const labels = prefix.split(".");
    if (!labels.every((l) => LABEL.test(l))) {
      return "its prefix must be dot-separated labels of letters, digits and hyphens, such as com.example/";
    }
    if (labels[1] === "modelcontextprotocol" || labels[1] === "mcp") {
      return "its prefix is reserved for MCP (second label modelcontextprotocol or mcp); use your own, such as com.example/";
    }
  }
  if (!NAME.test(name))
    return "its name must start and end with a letter or digit (letters, digits, -, _ and . inside)";
  return undefined;
}

/** The checked extras of a definition, as its list entry publishes them (copies, so later changes do not leak in). */
export function checkListingExtras(
  label: string,
  extras: ListingExtras,
): { icons?: Icon[]; _meta?: Record<string, unknown> } {
  const out: { icons?: Icon[]; _meta?: Record<string, unknown> } = {};
  if (extras.icons !== undefined) {
    if (!Array.isArray(extras.icons) || extras.icons.length > MAX_ICONS) {
      throw new DefinitionError(
        label,
        "C13",
        `icons must be a list of at most ${MAX_ICONS} icons ({ src, mimeType?, sizes?, theme? })`,
      );
    }
    extras.icons.forEach((icon, i) => {
      const problem = iconProblem(icon);
      if (problem) throw new DefinitionError(label, "C13", `icons[${i}] ${problem}`);
    });
    out.icons = structuredClone(extras.icons);
  }
  if (extras._meta !== undefined) {
    const meta = extras._meta;
    if (typeof meta !== "object" || meta === null || Array.isArray(meta)) {
      throw new DefinitionError(label, "C13", "_meta must be an object of metadata keys");
    }
    for (const key of Object.keys(meta)) {
      const problem = metaKeyProblem(key);
      if (problem) throw new DefinitionError(label, "C13", `_meta key ${JSON.stringify(key)}: ${problem}`);
    }
    try {
      out._meta = JSON.parse(JSON.stringify(meta)) as Record<string, unknown>;
    } catch {
      throw new DefinitionError(label, "C13", "_meta must be JSON data (no cycles, no BigInt)");
    }
  }
  return out;
}
