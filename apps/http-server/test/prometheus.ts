// A strict reader of the Prometheus text exposition format (version 0.0.4): every line must be a
// HELP or TYPE line, a sample, a comment or empty; anything else throws with the line.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type?: string;
  help?: string;
  samples: Sample[];
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const HELP = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE = new RegExp(`^(${NAME})(\\{(.*)\\})? (\\S+)( -?\\d+)?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/;

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== "") {
    const match = LABEL.exec(rest);
    if (!match) throw new Error(`bad labels in line: ${line}`);
    const [all, key, raw] = match as unknown as [string, string, string];
    labels[key] = raw.replace(/\\(["\\n])/g, (_m, c: string) => (c === "n" ? "\n" : c));
    rest = rest.slice(all.length);
  }
  return labels;
}

function parseValue(text: string, line: string): number {
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  if (text === "NaN") return Number.NaN;
  const value = Number(text);
  if (text === "" || Number.isNaN(value)) throw new Error(`bad value in line: ${line}`);
  return value;
}

/** The families of a scrape, by name; a histogram's _bucket/_sum/_count samples go to its family. */
export function parsePrometheus(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const family = (name: string) => {
    let found = families.get(name);
    if (!found) {
      found = { name, samples: [] };
      families.set(name, found);
    }
    return found;
  };
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const help = HELP.exec(line);
    if (help) {
      family(help[1] as string).help = help[2];
      continue;
    }
    const type = TYPE.exec(line);
    if (type) {
      family(type[1] as string).type = type[2];
      continue;
    }
    if (/^# (HELP|TYPE) /.test(line)) throw new Error(`bad ${line.slice(2, 6)} line: ${line}`);
    if (line.startsWith("#")) continue; // a plain comment, such as "# no registered metrics"
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not a sample: ${line}`);
    const name = sample[1] as string;
    const base = name.replace(/_(bucket|sum|count)$/, "");
    const owner = families.get(name) ?? (families.get(base)?.type === "histogram" ? families.get(base) : undefined);
    if (!owner) throw new Error(`sample before its TYPE line: ${line}`);
    owner.samples.push({
      name,
      labels: parseLabels(sample[3] ?? "", line),
      value: parseValue(sample[4] as string, line),
    });
  }
  return families;
}
