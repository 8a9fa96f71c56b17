import type { TicketWithComments } from "./store.js";

/** A ticket and its comments as markdown, for the ticket:// resource and the triage prompt. */
export function ticketMarkdown(ticket: TicketWithComments): string {
  const lines = [
    `# ${ticket.id}: ${ticket.title}`,
    "",
    `- Status: ${ticket.status}`,
    `- Priority: ${ticket.priority}`,
    `- Created: ${ticket.created_at}`,
    `- Updated: ${ticket.updated_at}`,
  ];
  if (ticket.resolution !== null) lines.push(`- Resolution: ${ticket.resolution}`);
  lines.push("", ticket.body, "", `## Comments (${ticket.comment_count})`);
  if (ticket.comments.length < ticket.comment_count) {
    lines.push("", `Showing the latest ${ticket.comments.length} of ${ticket.comment_count} comments.`);
  }
  if (ticket.comment_count === 0) lines.push("", "No comments yet.");
  for (const comment of ticket.comments) {
    lines.push("", `### Comment ${comment.id} (${comment.created_at})`, "", comment.body);
  }
  return `${lines.join("\n")}\n`;
}
