import { HttpConfigError } from "@toolshed/http";

const TIME_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const SIZE_UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
};

/** `10` (seconds), `500ms`, `10s`, `30m`, `1h` → milliseconds. */
export function parseDuration(flag: string, value: string, options: { allowZero?: boolean } = {}): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/i.exec(value.trim());
  const unit = (match?.[2] ?? "s").toLowerCase();
  const ms = match ? Math.round(Number(match[1]) * (TIME_UNITS[unit] ?? 1000)) : Number.NaN;
  if (!Number.isFinite(ms) || (ms === 0 && !options.allowZero)) {
    throw new HttpConfigError(
      `${flag} "${value}" is not a duration; write seconds (10) or a number with ms, s, m or h (500ms, 30m)`,
    );
  }
  return ms;
}

/** `1048576`, `512k`, `1m` (binary units) → bytes. */
export function parseSize(flag: string, value: string): number {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(value.trim());
  const factor = SIZE_UNITS[(match?.[2] ?? "").toLowerCase()];
  const bytes = match && factor !== undefined ? Number(match[1]) * factor : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new HttpConfigError(`${flag} "${value}" is not a size; write bytes (1048576) or 512k, 1m`);
  }
  return bytes;
}

export function parseCount(flag: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new HttpConfigError(`${flag} "${value}" must be a whole number from ${min} to ${max}`);
  }
  return n;
}

/** A comma-separated list, blanks dropped. */
export function parseList(value: string): string[] {
  return value
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
}
