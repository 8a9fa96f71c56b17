/**
 * Stored text (a note body, a ticket comment) as a fenced block a prompt can quote: the fence is
 * longer than any run of backticks in the text, so the text can never close it and go on as the
 * prompt's own words. Say in the prompt that fenced text is data, not instructions.
 */
export function fencedData(text: string, info = "text"): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}
