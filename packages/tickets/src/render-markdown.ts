import { fencedData } from "@toolshed/schema";
import type { TicketWithComments } from "./store.js";

/**
 * A ticket and its comments as markdown, for the ticket:// resource and the triage prompt. With
 * `fenced` (the prompt), what people wrote is quoted so that it cannot pass for the prompt's own
 * words: the title as a JSON string, the body and each comment in a fenced block they cannot close.
 */
export function ticketMarkdown(ticket: TicketWithComments, options: { fenced?: boolean } = {}): string {
  const quote = options.fenced ? (text: string) => fencedData(text) : (text: string) => text;
  const lines = [
    `# ${ticket.id}: ${options.fenced ? JSON.stringify(ticket.title) : ticket.title}`,
    "",
    `- Status: ${ticket.status}`,
    `- Priority: ${ticket.priority}`,
    `- Created: ${ticket.created_at}`,
    `- Updated: ${ticket.updated_at}`,
  ];
  if (ticket.resolution !== null) {
    lines.push(`- Resolution: ${options.fenced ? JSON.stringify(ticket.resolution) : ticket.resolution}`);
  }
  lines.push("", quote(ticket.body), "", `## Comments (${ticket.comment_count})`);
  if (ticket.comments.length < ticket.comment_count) {
    lines.push("", `Showing the latest ${ticket.comments.length} of ${ticket.comment_count} comments.`);
  }
  if (ticket.comment_count === 0) lines.push("", "No comments yet.");
  for (const comment of ticket.comments) {
    lines.push("", `### Comment ${comment.id} (${comment.created_at})`, "", quote(comment.body));
  }
  return `${lines.join("\n")}\n`;
}
