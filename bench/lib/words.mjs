// Word lists and the realistic rows built from them. Each pack ranks its own domain words first,
// then general words, then a long tail of made-up names (codenames, people, products) that makes
// rare words: Zipf-sampled, so a handful of words are in most rows and thousands in a few.
import { createRng, createZipf, mix32, rowSeed } from "./rng.mjs";

const split = (text) => text.trim().split(/\s+/);

const GENERAL = split(`
  team update customer week today tomorrow review plan issue question follow check change new old first last next
  time month quarter year call email meeting draft version release data report number list process idea result
  problem work project task status owner deadline priority budget cost price order account user service system
  support product feature page file document folder link share access team's office remote travel trip flight hotel
  schedule agenda summary decision action item risk goal metric target growth sales marketing finance legal hiring
  interview onboarding training workshop conference vendor partner contract invoice payment renewal discount quote
  proposal estimate timeline milestone launch rollout migration upgrade backup security password login permission
  settings profile dashboard chart table export import upload download sync integration api webhook token server
  database cache queue worker job cron script config environment staging production test bug fix patch hotfix
  deploy build pipeline review merge branch commit incident outage latency error warning alert monitor log trace
  memory disk network region cluster node container image storage bucket region mobile desktop browser android ios
  windows linux mac tablet screen button form field modal menu search filter sort page template theme color font
  language translation timezone calendar reminder notification message chat comment thread mention feedback survey
  rating score analysis research study experiment hypothesis insight trend forecast revenue margin churn retention
  pricing plan tier seat license trial pilot demo workshop training manual guide handbook policy process checklist
  garden kitchen recipe dinner lunch breakfast coffee groceries shopping list gift birthday holiday weekend family
  friend school kids doctor dentist appointment car insurance tax bank mortgage rent apartment house repair
  painting furniture moving packing book reading article podcast movie music concert game running workout yoga
  health sleep diet habit journal reflection gratitude learning course lesson notes homework exam essay thesis
`);

const FUNCTION_WORDS = split("the a to of and in for on with is it that this we at by from as be our after before");

const NOTES_WORDS = split(`
  meeting notes ideas todo weekly retro standup journal recipe groceries reading list goals plan trip packing
  budget brainstorm draft outline summary learnings reflection quotes bookmarks checklist routine habits
  garden workout project roadmap onboarding interview feedback oneonone offsite agenda minutes decisions
`);

const TICKETS_WORDS = split(`
  error login crash timeout slow fails failing broken cannot unable blank missing wrong duplicate stuck loading
  payment invoice checkout refund export import csv pdf upload attachment email notification password reset
  session token sso saml oauth permission denied forbidden 500 502 404 dashboard report chart mobile android ios
  safari chrome firefox sync offline api rate limit webhook retry queue database migration deploy regression
`);

const CRM_WORDS = split(`
  logistics retail healthcare fintech manufacturing education nonprofit government insurance hospitality
  renewal contract champion procurement pilot expansion churn onboarding upsell security review legal
  budget decision maker stakeholder quarterly business review usage adoption seats integration sso
  europe emea apac americas enterprise midmarket startup referral inbound outbound conference partner
`);

const SYLLABLES = split(`
  ka lo mi ven tor sa dri quel zan pho rix mun bel cor dax fen gil hul jor kes lum nor pel rav sil tum vor wex
  yal zor bra cle dun fro gra hem ist jun kry lan mor nev osk pra rho sta tev ulm vis wyn xan yor zek
`);

/** Made-up words of two or three syllables, in a fixed order: the rare tail of every vocabulary. */
function tailWords(count, taken) {
  const rng = createRng(20240601);
  const out = [];
  const seen = new Set(taken);
  while (out.length < count) {
    const parts = rng.int(2, 3);
    let word = "";
    for (let i = 0; i < parts; i++) word += rng.pick(SYLLABLES);
    if (seen.has(word)) continue;
    seen.add(word);
    out.push(word);
  }
  return out;
}

const TAIL_SIZE = 100_000;
// Share of words drawn from the made-up tail. With about 50 words a row, the most common real word
// is in about 40% of rows, the 25th in about 25%, the least common in 5%; the top made-up words
// are in about 1% of 100,000 rows and the last 50,000 in 1 to 3 rows each.
const TAIL_SHARE = 0.18;

function vocabulary(domain) {
  const head = [...new Set([...domain, ...GENERAL])];
  return [...head, ...tailWords(TAIL_SIZE, head)];
}

const capitalize = (word) => word.charAt(0).toUpperCase() + word.slice(1);

/** One pack's words, ranked, with a sampler that favours the top ranks. */
export function createVocabulary(domain) {
  const words = vocabulary(domain);
  const headSize = words.length - TAIL_SIZE;
  const head = createZipf(headSize, 1, 30);
  const tail = createZipf(TAIL_SIZE, 1, 100);
  const word = (rng) => (rng.chance(TAIL_SHARE) ? words[headSize + tail(rng)] : words[head(rng)]);
  const phrase = (rng, min, max) => {
    const n = rng.int(min, max);
    const out = [];
    for (let i = 0; i < n; i++) {
      if (i > 0 && rng.chance(0.3)) out.push(rng.pick(FUNCTION_WORDS));
      out.push(word(rng));
    }
    return out.join(" ");
  };
  const sentence = (rng) => `${capitalize(phrase(rng, 5, 14))}.`;
  const paragraph = (rng, min, max) => {
    const n = rng.int(min, max);
    const out = [];
    for (let i = 0; i < n; i++) out.push(sentence(rng));
    return out.join(" ");
  };
  return { words, headSize, word, phrase, sentence, paragraph };
}

export const notesVocabulary = createVocabulary(NOTES_WORDS);
export const ticketsVocabulary = createVocabulary(TICKETS_WORDS);
export const crmVocabulary = createVocabulary(CRM_WORDS);

const TAGS = split("work personal ideas todo reading travel health finance family project meeting archive urgent");
const PRIORITIES = [
  ["normal", 0.6],
  ["high", 0.2],
  ["low", 0.15],
  ["urgent", 0.05],
];
const COMPANY_SUFFIXES = split(`
  Labs Systems Logistics Health Foods Analytics Group Partners Robotics Energy Capital Software Networks Studios
  Holdings Works Media Bio Freight Retail
`);
const LEGAL = ["", "", "", " Inc", " GmbH", " Ltd", " LLC", " SA"];
const TLDS = [".com", ".com", ".com", ".io", ".co", ".net", ".de", ".co.uk"];

// Two years of history ending at a fixed date, so timestamps repeat across runs.
const END = Date.parse("2025-06-01T00:00:00Z");
const SPAN = 2 * 365 * 24 * 3600 * 1000;
const timestamp = (rng) => new Date(END - Math.floor(rng.next() * SPAN));

const weighted = (rng, options) => {
  let u = rng.next();
  for (const [value, p] of options) {
    u -= p;
    if (u < 0) return value;
  }
  return options[0][0];
};

/** Note `index`: a 2–6 word title, 2–8 sentences, 0–3 tags. Titles are unique per index. */
export function noteRow(index) {
  const rng = createRng(rowSeed(1, index));
  const v = notesVocabulary;
  const title = capitalize(v.phrase(rng, 2, 6));
  const tags = [...new Set(Array.from({ length: rng.int(0, 3) }, () => rng.pick(TAGS)))].sort();
  return { title, body: v.paragraph(rng, 2, 8), tags, at: timestamp(rng) };
}

/** Ticket `index`: a short problem title, 2–6 sentences with error codes, 60% closed. */
export function ticketRow(index) {
  const rng = createRng(rowSeed(2, index));
  const v = ticketsVocabulary;
  const title = capitalize(v.phrase(rng, 4, 9));
  let body = v.paragraph(rng, 2, 6);
  if (rng.chance(0.3)) body += ` Error code ERR-${rng.int(1000, 9999)} in v${rng.int(1, 4)}.${rng.int(0, 20)}.`;
  const closed = rng.chance(0.6);
  return {
    title,
    body,
    priority: weighted(rng, PRIORITIES),
    status: closed ? "closed" : "open",
    resolution: closed ? capitalize(v.phrase(rng, 3, 8)) : null,
    at: timestamp(rng),
  };
}

/** Account `index`: a company-like name, a domain, tier, ARR and free-text notes. */
export function accountRow(index) {
  const rng = createRng(rowSeed(3, index));
  const v = crmVocabulary;
  const root = v.words[v.headSize + Math.floor(rng.next() * (v.words.length - v.headSize))];
  const suffix = rng.pick(COMPANY_SUFFIXES);
  const name = `${capitalize(root)} ${suffix}${rng.pick(LEGAL)}`;
  const tier = weighted(rng, [
    ["startup", 0.6],
    ["growth", 0.3],
    ["enterprise", 0.1],
  ]);
  const base = { startup: 20_000, growth: 150_000, enterprise: 900_000 }[tier];
  const arr = Math.round(base * (0.3 + rng.next() * 2.5));
  const domain = rng.chance(0.9) ? `${root}${suffix.toLowerCase()}${rng.pick(TLDS)}` : null;
  const notes = rng.chance(0.8) ? v.paragraph(rng, 1, 5) : null;
  // Looks random like the store's ids, and is unique: mix32 is a bijection.
  const id = `acc_${mix32(index).toString(16).padStart(8, "0")}${rng.int(0, 0xffff).toString(16).padStart(4, "0")}`;
  return { id, name, tier, arr, domain, notes };
}

/** A word no row contains (its letters never occur together in the lists above). */
export function missingWord(rng) {
  return `qx${rng.int(100, 999)}zv`;
}

export { capitalize, FUNCTION_WORDS };
