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
} as const;
