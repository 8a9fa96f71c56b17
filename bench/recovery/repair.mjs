// The second try: one generic repair, the same for every server, standing for a model that reads
// the answer to its call. It reads only the answer (its text, and any structured list of
// {path, message} issues the result or the error carries) and changes the call only where the
// answer points:
// - an unknown tool, with names offered ("did you mean", "closest tools: ..."): the first one;
// - an argument the answer calls unknown: renamed to the name it suggests, else dropped;
// - an argument the answer names with a bound ("at most 100", "<=100", "at least 1"): clamped;
// - an argument the answer names with the allowed values listed: the one that matches ignoring
//   case, else the closest;
// - an argument the answer names that was sent as null: dropped;
// - any other argument the answer names: what the model meant for it (a model knows what it
//   meant; it learns from the answer which argument to send differently), or dropped when it
//   meant none.
// It knows nothing of the corpus, the tools or the server. When the answer points at nothing it
// can change, there is no second try.

const UNKNOWN_TOOL = /unknown tool|not found|no such tool|does not exist|invalid tool/i;
const UNKNOWN_ARG = /unknown|unrecognized|unrecognised|not allowed|unexpected|additional propert/i;
const OFFER =
  /(?:did you mean|closest(?: tools| names| matches)?|similar(?: tools)?|available tools|valid tools)\s*:?\s*/i;
const MAX = /(?:at most|<=|≤|no more than|less than or equal to|maximum(?: is| of)?)\s*(-?\d+(?:\.\d+)?)/i;
const MIN = /(?:at least|>=|≥|no less than|greater than or equal to|minimum(?: is| of)?)\s*(-?\d+(?:\.\d+)?)/i;

// Lists of names an answer offers ("valid arguments: a, b", "did you mean x") do not point at them.
const LIST =
  /\b(?:valid|available|allowed|known) (?:arguments|keys|names|fields|parameters|properties|tools)\b|did you mean|closest/i;
const pointed = (clause) => {
  const m = LIST.exec(clause);
  return m ? clause.slice(0, m.index) : clause;
};
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** Whether `clause` names `name` as a word of its own (not inside a longer name). */
export const mentions = (clause, name) => new RegExp(`(?<![\\w-])${escapeRegExp(name)}(?![\\w-])`).test(clause);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Every array of {path, message} objects in a value (the structured issues some servers send). */
function structuredIssues(value, depth = 0, out = []) {
  if (depth > 5 || value === null || typeof value !== "object") return out;
  if (Array.isArray(value)) {
    const issues = value.filter(
      (v) => v && typeof v === "object" && typeof v.message === "string" && v.path !== undefined,
    );
    for (const issue of issues) {
      const path = Array.isArray(issue.path) ? issue.path.join(".") : String(issue.path);
      out.push(`${path}: ${issue.message}`);
    }
    if (issues.length > 0) return out;
  }
  for (const v of Object.values(value)) structuredIssues(v, depth + 1, out);
  return out;
}

/** What a caller sees of an answer: a result or a JSON-RPC error. */
export function readAnswer({ result, error }) {
  if (error) {
    const text = String(error.message ?? error);
    return { refused: true, text, clauses: clausesOf(text, error.data) };
  }
  const text = (result?.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");
  const refused = result?.isError === true;
  return { refused, text, clauses: refused ? clausesOf(text, [result._meta, result.structuredContent]) : [] };
}

function clausesOf(text, structured) {
  const clauses = text.split(/\n|;\s+(?=[\w.[\]-]+:\s)/).filter((c) => c.trim() !== "");
  return [...clauses, ...structuredIssues(structured)];
}

function offeredNames(clause, except) {
  const match = OFFER.exec(clause);
  if (!match) return [];
  const rest = clause.slice(match.index + match[0].length);
  return (rest.match(/[A-Za-z_][\w.-]*/g) ?? []).filter((n) => n !== except && !/^(or|and|the)$/i.test(n));
}

function distance(a, b) {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
}

// A list of allowed values: two or more quoted values joined by "|", "," or "or".
const VALUE_LIST = /(["'`])[^"'`\s]{1,60}\1(?:\s*(?:\||,\s*or\b|,|\bor\b)\s*(["'`])[^"'`\s]{1,60}\2)+/g;

function allowedValues(clauses) {
  const values = new Set();
  for (const clause of clauses) {
    for (const list of clause.matchAll(VALUE_LIST)) {
      for (const m of list[0].matchAll(/["'`]([^"'`\s]{1,60})["'`]/g)) values.add(m[1]);
    }
  }
  return [...values];
}

/**
 * The second call, or undefined when the answer gives nothing to act on.
 * @param {{name: string, arguments: Record<string, unknown>}} call what was sent
 * @param {{clauses: string[]}} answer what came back (readAnswer)
 * @param {Record<string, unknown>} meant the arguments the model meant
 */
export function repair(call, answer, meant) {
  const { clauses } = answer;
  let name = call.name;
  const args = structuredClone(call.arguments ?? {});

  const toolClause = clauses.find((c) => mentions(c, call.name) && UNKNOWN_TOOL.test(c));
  if (toolClause) {
    const offered = clauses.flatMap((c) => offeredNames(c, call.name));
    if (offered.length === 0) return undefined;
    name = offered[0];
  }

  const handled = new Set();
  for (const key of Object.keys(call.arguments ?? {})) {
    const about = clauses.filter((c) => mentions(pointed(c), key) && UNKNOWN_ARG.test(pointed(c)));
    if (about.length === 0) continue;
    handled.add(key);
    delete args[key];
    const suggested = about.flatMap((c) => offeredNames(c, key))[0];
    if (suggested && !(suggested in args)) {
      args[suggested] = suggested in meant ? meant[suggested] : call.arguments[key];
      handled.add(suggested);
    }
  }

  const candidates = new Set([...Object.keys(call.arguments ?? {}), ...Object.keys(meant)]);
  for (const field of candidates) {
    if (handled.has(field)) continue;
    const about = clauses.filter((c) => mentions(pointed(c), field));
    if (about.length === 0) continue;
    const sent = args[field];
    if (typeof sent === "number") {
      const max = about.map((c) => MAX.exec(c)).find(Boolean);
      const min = about.map((c) => MIN.exec(c)).find(Boolean);
      if (max && sent > Number(max[1])) {
        args[field] = Number(max[1]);
        continue;
      }
      if (min && sent < Number(min[1])) {
        args[field] = Number(min[1]);
        continue;
      }
    }
    if (typeof sent === "string") {
      const values = allowedValues(about);
      if (values.length >= 2) {
        const lower = sent.toLowerCase();
        args[field] =
          values.find((v) => v.toLowerCase() === lower) ??
          values.reduce((best, v) =>
            distance(lower, v.toLowerCase()) < distance(lower, best.toLowerCase()) ? v : best,
          );
        continue;
      }
    }
    if (sent === null) {
      delete args[field];
      continue;
    }
    if (field in meant) args[field] = structuredClone(meant[field]);
    else delete args[field];
  }

  if (name === call.name && same(args, call.arguments ?? {})) return undefined;
  return { name, arguments: args };
}
