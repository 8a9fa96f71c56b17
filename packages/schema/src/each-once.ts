/** What `eachOnce` needs of Zod's refinement context (`superRefine`'s second argument). */
interface IssueSink {
  addIssue(issue: { code: "custom"; message: string }): void;
}

/**
 * A check for a list that must name each item once, such as the ids of a bulk tool:
 * `z.array(id).superRefine(eachOnce("id"))`. The hint names every repeat and how often it came,
 * so that one retry fixes them all: `must list each id once; remove the repeats of 'a' (2 times)`.
 */
export function eachOnce(noun = "item"): (items: readonly unknown[], ctx: IssueSink) => void {
  return (items, ctx) => {
    const counts = new Map<unknown, number>();
    for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
    const repeated = [...counts].filter(([, n]) => n > 1).map(([item, n]) => `'${String(item)}' (${n} times)`);
    if (repeated.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `must list each ${noun} once; remove the repeats of ${repeated.join(", ")}`,
      });
    }
  };
}
