/** The audit's rules, in report order, with the CONTRACT.md rules each one checks. */
export const RULES = [
  { id: "D1", title: "Tool names are valid and unique", contract: ["C13"], weight: 2 },
  { id: "D2", title: "Tools have useful descriptions", contract: ["C13"], weight: 2 },
  { id: "D3", title: "Every input property is described", contract: ["C13"], weight: 1 },
  { id: "D4", title: "Input schema is an object schema", contract: ["C5"], weight: 2 },
  { id: "D5", title: "Input objects are closed (additionalProperties: false)", contract: ["C5", "C6"], weight: 1 },
  { id: "D6", title: "Every string, number and array is bounded", contract: ["C5"], weight: 2 },
  { id: "D7", title: "Schemas read the same in draft-07 and 2020-12", contract: ["C5"], weight: 2 },
  { id: "D8", title: "Annotations are present and consistent", contract: ["C14"], weight: 2 },
  { id: "D9", title: "Structured results have an output schema", contract: ["C1", "C2"], weight: 1 },
  { id: "D10", title: "Prompts and resources are named and described", contract: ["C13"], weight: 1 },
  { id: "B1", title: "Invalid arguments come back as a tool error", contract: ["C6"], weight: 3 },
  { id: "B2", title: "Invalid-argument errors name the argument", contract: ["C6"], weight: 2 },
  { id: "B3", title: "Hostile strings get an answer, not a protocol fault", contract: ["C7", "C12"], weight: 2 },
  { id: "B4", title: "Nothing internal leaks in answers", contract: ["C7"], weight: 3 },
  { id: "B5", title: "An unknown tool is JSON-RPC -32602", contract: ["C12"], weight: 2 },
  { id: "B6", title: "The server survives the probes", contract: ["C12"], weight: 3 },
] as const;

export type RuleId = (typeof RULES)[number]["id"];
