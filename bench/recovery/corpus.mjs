// The recovery corpus: wrong calls over the three packs' tools, in the forms models are known to
// produce. Each entry starts from a correct call (what the model meant) and breaks it one way.
// It is built from the tools' published input schemas and a correct call per tool, so it is the
// same on every run and for every server.
//
// An entry: { id, form, tool, call: {name, arguments} (what is sent), intent (the arguments the
// model meant), expect (the arguments the handler must see for the call to count as done right;
// usually the intent, a bound for an out-of-range value), field and hints (for scoring only:
// which name the answer should mention and any text that says what would work), setup (correct
// calls the entry needs first, such as the note it deletes) }.

export const FORMS = [
  { id: "number-string", label: "number as a string" },
  { id: "json-string", label: "array as a JSON string" },
  { id: "enum-case", label: "enum value in another case" },
  { id: "name-case", label: "argument name in camelCase / other case" },
  { id: "missing", label: "required argument left out" },
  { id: "extra", label: "extra argument" },
  { id: "range", label: "number out of range" },
  { id: "tool-name", label: "tool name close to a real one" },
  { id: "null", label: "null for an optional argument" },
  { id: "nested", label: "wrong nested shape" },
  { id: "cross-field", label: "cross-field rule broken" },
  { id: "uncoercible", label: "wrong type no rule can coerce" },
];

/** Arguments whose maximum is no correct call: see the range entries below. */
const AT_MAXIMUM_IS_WRONG = new Set(["min_arr", "expected_version"]);
const TICKETS = ["T-1001", "T-1002", "T-1003", "T-1004", "T-1005", "T-1006", "T-1007", "T-1008"];
const ACCOUNTS = ["acc_1001", "acc_1002", "acc_1003", "acc_1004"];
const pick = (list, n) => list[n % list.length];

/** Correct calls per tool: `n` makes titles, names and keys unique, and varies the values. */
const CORRECT = {
  get_note: (n) => ({ args: { title: pick(["groceries", "todo", "weekly review", "book list", "tomato soup"], n) } }),
  search_notes: (n) => ({ args: { query: pick(["gro", "soup", "standup", "review"], n), limit: pick([5, 3, 8], n) } }),
  list_notes: (n) => ({ args: { tag: pick(["home", "work", "cooking"], n), limit: pick([5, 10, 20], n) } }),
  create_note: (n) => ({
    args: {
      title: `recovery note ${n}`,
      body: "First line of the note.",
      tags: ["work", "ideas"],
      idempotency_key: `rec-note-${n}`,
    },
  }),
  update_note: (n) => ({
    setup: [{ name: "create_note", arguments: { title: `recovery fixture ${n}`, body: "Draft." } }],
    args: { title: `recovery fixture ${n}`, body: "Second draft.", tags: ["home"], expected_version: 1 },
  }),
  delete_note: (n) => ({
    setup: [{ name: "create_note", arguments: { title: `recovery fixture ${n}`, body: "To delete." } }],
    args: { title: `recovery fixture ${n}` },
  }),
  search_tickets: (n) => ({
    args: {
      query: pick(["login", "export", "timeout", "invoice"], n),
      status: pick(["open", "closed", "any"], n),
      limit: pick([5, 10], n),
    },
  }),
  get_ticket: (n) => ({ args: { id: pick(TICKETS, n), comments_limit: pick([5, 20], n) } }),
  create_ticket: (n) => ({
    args: {
      title: `Recovery ticket ${n}`,
      body: "Open the settings page and press save: nothing happens.",
      priority: pick(["low", "high", "urgent"], n),
      idempotency_key: `rec-ticket-${n}`,
    },
  }),
  update_ticket_status: (n) => ({
    args:
      n % 2 === 0
        ? { id: pick(TICKETS, n), status: "closed", resolution: "Fixed in release 2.3." }
        : { id: pick(TICKETS, n), status: "open" },
  }),
  bulk_update_ticket_status: (n) => ({
    args:
      n % 2 === 0
        ? { ids: [pick(TICKETS, n), pick(TICKETS, n + 1)], status: "closed", resolution: "Fixed in release 2.3." }
        : { ids: [pick(TICKETS, n), pick(TICKETS, n + 1)], status: "open" },
  }),
  add_ticket_comment: (n) => ({
    args: { id: pick(TICKETS, n), body: "Seen again today on the staging site.", idempotency_key: `rec-comment-${n}` },
  }),
  crm_search_accounts: (n) => ({
    args: {
      query: pick(["acme", "logistics", "health", "globex"], n),
      tier: pick(["enterprise", "growth", "startup"], n),
      min_arr: pick([1000, 50000], n),
      max_arr: pick([5000000, 2500000.5], n),
      limit: pick([10, 25], n),
    },
  }),
  crm_get_account: (n) => ({ args: { account_id: pick(ACCOUNTS, n) } }),
  crm_create_account: (n) => ({
    args: {
      name: `Recovery Co ${n}`,
      tier: pick(["startup", "growth", "enterprise"], n),
      arr: pick([50000, 250000.5, 1200000], n),
      domain: `recovery-${n}.example`,
      idempotency_key: `rec-account-${n}`,
    },
  }),
  crm_bulk_update_tier: (n) => ({
    args: {
      account_ids: [pick(ACCOUNTS, n), pick(ACCOUNTS, n + 1)],
      new_tier: pick(["growth", "enterprise", "startup"], n),
    },
  }),
};

/** Names a model reaches for instead of the real one. */
const NEAR_NAMES = {
  get_note: ["get_notes", "getNote"],
  search_notes: ["search_note", "notes_search"],
  list_notes: ["list_note", "listNotes"],
  create_note: ["create_notes", "add_note"],
  update_note: ["update_notes", "edit_note"],
  delete_note: ["delete_notes", "remove_note"],
  search_tickets: ["search_ticket", "searchTickets"],
  get_ticket: ["get_tickets", "getTicket"],
  create_ticket: ["create_tickets", "createTicket"],
  update_ticket_status: ["update_ticket", "set_ticket_status"],
  bulk_update_ticket_status: ["bulk_update_ticket_statuses", "bulk_update_tickets"],
  add_ticket_comment: ["add_comment", "add_ticket_comments"],
  crm_search_accounts: ["crm_search_account", "search_accounts"],
  crm_get_account: ["crm_get_accounts", "get_account"],
  crm_create_account: ["crm_create_accounts", "create_account"],
  crm_bulk_update_tier: ["crm_bulk_update_tiers", "bulk_update_tier"],
};

/** Breaks the cross-field rules the tools state: each returns [sent, intent, field, hints]. */
const CROSS_FIELD = {
  crm_search_accounts: (a) => [{ ...a, min_arr: a.max_arr, max_arr: a.min_arr }, a, "max_arr", ["min_arr"]],
  update_ticket_status: (a) =>
    a.status === "closed"
      ? [{ id: a.id, status: "closed" }, a, "resolution", ["closed"]]
      : [{ ...a, resolution: "Reopened by the customer." }, a, "resolution", ["open", "omit"]],
  update_note: (a) => [{ title: a.title, expected_version: a.expected_version }, a, "body", ["tags"]],
  crm_bulk_update_tier: (a) => [
    { ...a, account_ids: [a.account_ids[0], a.account_ids[0]] },
    a,
    "account_ids",
    ["once"],
  ],
};

const EXTRAS = [
  ["verbose", true],
  ["format", "json"],
  ["user_id", "u-17"],
];

const NUMBER_WORDS = { 1: "one", 3: "three", 5: "five", 8: "eight", 10: "ten", 20: "twenty", 25: "twenty-five" };

function camel(name) {
  return name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
}

/** The name as a model writes it for another convention: camelCase, kebab-case, PascalCase, UPPER. */
function renamedKey(key, round) {
  const pascal = (k) => camel(k)[0].toUpperCase() + camel(k).slice(1);
  if (!key.includes("_")) return round % 2 === 0 ? pascal(key) : key.toUpperCase();
  return [camel(key), key.replace(/_/g, "-"), pascal(key), key.toUpperCase()][round % 4];
}

function typeWords(prop) {
  if (prop?.enum) return [...prop.enum];
  const type = prop?.type;
  if (type === "integer") return ["integer", "number"];
  if (type === "number") return ["number"];
  if (type === "array") return ["array", "list"];
  if (type === "string") return ["string", "text"];
  return [String(type)];
}

function without(args, key) {
  const copy = { ...args };
  delete copy[key];
  return copy;
}

/**
 * The corpus over `tools` ({name, inputSchema} as tools/list publishes them): `rounds` correct
 * calls per tool, each broken every way that applies to it, then at most `perForm` calls of each
 * form, taken from the tools in turn so that no tool or form outweighs the others.
 */
export function buildCorpus(tools, { rounds = 4, perForm = 28 } = {}) {
  const pool = buildPool(tools, rounds);
  const corpus = [];
  for (const form of FORMS) {
    const byTool = new Map();
    for (const entry of pool.filter((e) => e.form === form.id)) {
      if (!byTool.has(entry.tool)) byTool.set(entry.tool, []);
      byTool.get(entry.tool).push(entry);
    }
    const queues = [...byTool.values()];
    const taken = [];
    while (taken.length < perForm && queues.some((q) => q.length > 0)) {
      for (const q of queues) if (q.length > 0 && taken.length < perForm) taken.push(q.shift());
    }
    for (const [i, entry] of taken.entries()) corpus.push({ ...entry, id: `${form.id}-${i + 1}` });
  }
  return corpus;
}

function buildPool(tools, rounds) {
  const entries = [];
  let serial = 0;
  const add = (form, tool, correct, sent, intent, extra = {}) => {
    serial += 1;
    entries.push({
      id: `${form}-${serial}`,
      form,
      tool: tool.name,
      call: { name: extra.name ?? tool.name, arguments: sent },
      intent,
      expect: extra.expect ?? intent,
      field: extra.field,
      hints: extra.hints ?? [],
      setup: correct.setup ?? [],
    });
  };
  for (const tool of tools) {
    const make = CORRECT[tool.name];
    if (!make) throw new Error(`recovery corpus: no correct call for tool ${tool.name}`);
    const props = tool.inputSchema.properties ?? {};
    const required = new Set(tool.inputSchema.required ?? []);
    for (let round = 0; round < rounds; round++) {
      // Each entry gets its own correct call, so titles, keys and fixtures never collide.
      const fresh = () => make(serial * 7 + round);
      for (const [key, prop] of Object.entries(props)) {
        const numeric = prop.type === "number" || prop.type === "integer";
        let c = fresh();
        let value = c.args[key];
        if (numeric && value !== undefined) {
          add("number-string", tool, c, { ...c.args, [key]: String(value) }, c.args, {
            field: key,
            hints: typeWords(prop),
          });
          c = fresh();
          value = c.args[key];
          // Over the maximum only where the maximum is a value a caller means: min_arr there would
          // break the min_arr <= max_arr rule, and a version there is not the note's version.
          if (
            prop.maximum !== undefined &&
            !AT_MAXIMUM_IS_WRONG.has(key) &&
            (round % 2 === 0 || prop.minimum === undefined)
          ) {
            const sent = { ...c.args, [key]: prop.maximum * 10 };
            add("range", tool, c, sent, sent, {
              expect: { ...c.args, [key]: prop.maximum },
              field: key,
              hints: [String(prop.maximum)],
            });
          } else if (prop.minimum !== undefined && key !== "max_arr") {
            // (max_arr at its minimum would break the min_arr <= max_arr rule: not one mistake.)
            const low = prop.minimum - (prop.type === "integer" ? 1 : 500);
            const sent = { ...c.args, [key]: low };
            add("range", tool, c, sent, sent, {
              expect: { ...c.args, [key]: prop.minimum },
              field: key,
              hints: [String(prop.minimum)],
            });
          }
          c = fresh();
          const word = NUMBER_WORDS[c.args[key]];
          if (word)
            add("uncoercible", tool, c, { ...c.args, [key]: word }, c.args, { field: key, hints: typeWords(prop) });
        }
        c = fresh();
        value = c.args[key];
        if (prop.type === "array" && value !== undefined) {
          add("json-string", tool, c, { ...c.args, [key]: JSON.stringify(value) }, c.args, {
            field: key,
            hints: typeWords(prop),
          });
          c = fresh();
          const objectKey = key === "tags" ? "name" : "id";
          add("nested", tool, c, { ...c.args, [key]: c.args[key].map((v) => ({ [objectKey]: v })) }, c.args, {
            field: key,
            hints: ["string"],
          });
          c = fresh();
          add("uncoercible", tool, c, { ...c.args, [key]: c.args[key].join(", ") }, c.args, {
            field: key,
            hints: typeWords(prop),
          });
        }
        if (prop.enum && value !== undefined) {
          const shout = value.toUpperCase();
          const title = value[0].toUpperCase() + value.slice(1);
          add("enum-case", tool, c, { ...c.args, [key]: round % 2 === 0 ? title : shout }, c.args, {
            field: key,
            hints: prop.enum,
          });
        }
        c = fresh();
        value = c.args[key];
        if (value !== undefined) {
          const renamed = renamedKey(key, round);
          add("name-case", tool, c, { ...without(c.args, key), [renamed]: value }, c.args, {
            field: key,
            hints: [key],
          });
        }
        c = fresh();
        value = c.args[key];
        if (required.has(key) && value !== undefined) {
          add("missing", tool, c, without(c.args, key), c.args, {
            field: key,
            hints: [...typeWords(prop), "required"],
          });
        } else if (!required.has(key) && value !== undefined) {
          add("null", tool, c, { ...c.args, [key]: null }, without(c.args, key), {
            field: key,
            hints: [...typeWords(prop), "omit"],
          });
        }
        c = fresh();
        value = c.args[key];
        if (prop.type === "string" && !prop.enum && value !== undefined) {
          const objectKey = key === "query" ? "text" : "value";
          add("nested", tool, c, { ...c.args, [key]: { [objectKey]: value } }, c.args, {
            field: key,
            hints: ["string"],
          });
        }
        if (key === "id" && typeof value === "string") {
          add("uncoercible", tool, c, { ...c.args, id: Number(value.slice(2)) }, c.args, {
            field: key,
            hints: ["string", "T-"],
          });
        }
      }
      let c = fresh();
      const [extraKey, extraValue] = EXTRAS[(serial + round) % EXTRAS.length];
      add("extra", tool, c, { ...c.args, [extraKey]: extraValue }, c.args, {
        field: extraKey,
        hints: Object.keys(props),
      });
      c = fresh();
      const near = NEAR_NAMES[tool.name][round % 2];
      add("tool-name", tool, c, c.args, c.args, { name: near, field: tool.name, hints: [tool.name] });
      const cross = CROSS_FIELD[tool.name];
      if (cross) {
        c = fresh();
        const [sent, intent, field, hints] = cross(c.args);
        add("cross-field", tool, c, sent, intent, { field, hints });
      }
    }
  }
  return entries;
}
