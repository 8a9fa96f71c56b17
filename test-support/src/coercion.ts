/**
 * One call of the CRM pack's crm_search_accounts with the slips lax coercion takes (a camelCase name,
 * an enum value in another case, numbers as strings), the call that was meant, what the server logs
 * for it, and the answer to a slip it must not take (a rounding): the same case on every transport.
 */
export const CRM_COERCION = {
  tool: "crm_search_accounts",
  sent: { query: "company", tier: "Growth", minArr: "1000", limit: "5" },
  meant: { query: "company", tier: "growth", min_arr: 1000, limit: 5 },
  coerced: [
    { path: "min_arr", kind: "argument_name", from: "minArr" },
    { path: "tier", kind: "enum_case", from: "string" },
    { path: "min_arr", kind: "number", from: "string" },
    { path: "limit", kind: "number", from: "string" },
  ],
  rounding: { query: "company", limit: "5.5" },
  rounded: "Invalid arguments for tool crm_search_accounts:\nlimit: must be an integer (got 5.5)",
  /** The answer to `sent` with coercion off (--strict-arguments): every slip named, with what works. */
  strict: [
    "Invalid arguments for tool crm_search_accounts:",
    'minArr: unknown argument; did you mean "min_arr"? Valid arguments: query, tier, min_arr, max_arr, limit, cursor',
    'tier: must be one of "startup", "growth", "enterprise" (got "Growth")',
    'limit: must be a number (got "5")',
  ].join("\n"),
} as const;
