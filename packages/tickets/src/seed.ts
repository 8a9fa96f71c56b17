import { MAX_TICKETS_PAGE, type TicketPriority, type TicketsStore } from "./store.js";

interface DemoTicket {
  title: string;
  body: string;
  priority: TicketPriority;
  resolution?: string;
  comments?: string[];
}

const DEMO_TICKETS: readonly DemoTicket[] = [
  {
    title: "Login fails after password reset",
    body: "After resetting my password through the email link, the login page says 'invalid credentials' with the new password. Clearing cookies did not help. Browser: Firefox 128.",
    priority: "high",
    comments: [
      "Reproduced on staging: the reset token is consumed but the new hash is not saved.",
      "Workaround for the customer: an admin can set a temporary password.",
    ],
  },
  {
    title: "Invoice PDF shows the wrong currency",
    body: "Invoices for our EU customers show amounts in USD instead of EUR. The totals are right, only the symbol is wrong.",
    priority: "normal",
    resolution: "Fixed the locale lookup in the PDF template; invoices regenerated for March.",
    comments: ["Affects invoices created since the 2.14 release."],
  },
  {
    title: "Export to CSV times out for large projects",
    body: "Exporting a project with more than 50,000 tasks to CSV fails after 30 seconds with a gateway timeout.",
    priority: "high",
    comments: ["The export runs in the request; it should move to a background job.", "Customer needs it by Friday."],
  },
  {
    title: "Dark mode: sidebar text unreadable",
    body: "In dark mode the sidebar links are dark grey on black. Screenshot attached by the reporter.",
    priority: "low",
  },
  {
    title: "Webhook deliveries retried forever",
    body: "A webhook endpoint that answers 410 Gone keeps receiving retries every minute. We expected delivery to stop after the endpoint is gone.",
    priority: "normal",
    comments: ["410 should disable the endpoint, like 404 after 24 hours does."],
  },
  {
    title: "Two-factor codes rejected on some phones",
    body: "Some users get 'invalid code' for TOTP codes. Their phone clocks are a few minutes off.",
    priority: "urgent",
    resolution: "Allowed one time step of clock drift on each side, as RFC 6238 recommends.",
  },
  {
    title: "Search does not find tickets by customer email",
    body: "Typing a customer's email address in the search box returns nothing, although the email is in the ticket body.",
    priority: "normal",
  },
  {
    title: "Mobile app crashes on startup (Android 14)",
    body: "Since version 5.2 the Android app closes right after the splash screen on Android 14 devices. Crash log attached.",
    priority: "urgent",
    comments: ["Crash is in the notification permission request.", "Hotfix 5.2.1 is in review at the store."],
  },
  {
    title: "Password reset email never arrives",
    body: "Customers at example.org do not receive the password reset email. Other emails arrive.",
    priority: "high",
    comments: ["Their mail server rejects our DKIM signature; checking the DNS record."],
  },
  {
    title: "Billing page shows last month's usage",
    body: "The usage chart on the billing page lags one month behind the invoice.",
    priority: "low",
    resolution: "The chart cached the previous period; cache key now includes the month.",
  },
  {
    title: "API rate limit too low for bulk imports",
    body: "Our nightly import hits the 100 requests per minute limit. Could the limit be raised, or is there a bulk endpoint?",
    priority: "normal",
    comments: ["Pointed the customer to the batch endpoint, which takes 500 records per request."],
  },
  {
    title: "Calendar invites have the wrong time zone",
    body: "Invites sent from the scheduling page show UTC times in Outlook instead of the organizer's time zone.",
    priority: "normal",
  },
  {
    title: "Cannot upload files larger than 10 MB",
    body: "Uploading a 12 MB attachment fails with 'request entity too large'. The plan says 25 MB.",
    priority: "high",
    resolution: "Raised the proxy body limit to 25 MB to match the plan.",
  },
  {
    title: "Slow dashboard for accounts with many users",
    body: "The admin dashboard takes over 10 seconds to load for accounts with more than 2,000 users.",
    priority: "normal",
    comments: ["The user list is loaded in full; it needs pagination."],
  },
  {
    title: "Typo in the welcome email",
    body: "The welcome email says 'Welcom to the team'.",
    priority: "low",
    resolution: "Fixed the template.",
  },
  {
    title: "SSO login loops back to the sign-in page",
    body: "With SAML single sign-on enabled, users are sent back to the sign-in page after authenticating at their identity provider.",
    priority: "urgent",
    comments: ["The session cookie is set with SameSite=Strict, so it is dropped on the POST back from the IdP."],
  },
];

/**
 * Fills a store with demo tickets and comments. Safe to call again: a demo ticket that is there
 * (found by its title) is left as it is, and every write uses a fixed idempotency key, so seeders
 * racing on a new store add each ticket once.
 */
export async function seedDemo(store: TicketsStore): Promise<{ tickets: number; comments: number }> {
  let comments = 0;
  for (const [index, demo] of DEMO_TICKETS.entries()) {
    const key = `toolshed-demo-ticket-${index + 1}`;
    // Keys are forgotten after their retention (a day by default), titles are not.
    const found = await store.searchTickets({ text: demo.title, status: "any", limit: MAX_TICKETS_PAGE });
    if (found.some((hit) => hit.title === demo.title)) {
      comments += demo.comments?.length ?? 0;
      continue;
    }
    const { ticket } = await store.createTicket(
      { title: demo.title, body: demo.body, priority: demo.priority },
      { idempotencyKey: key },
    );
    if (demo.resolution !== undefined) {
      // Close only a ticket nobody has touched since it was created.
      const current = await store.getTicket(ticket.id, { commentsLimit: 1 });
      if (current.status === "open" && current.updated_at === current.created_at && current.comment_count === 0) {
        await store.updateTicketStatus(ticket.id, { status: "closed", resolution: demo.resolution });
      }
    }
    for (const [n, body] of (demo.comments ?? []).entries()) {
      await store.addComment(ticket.id, body, { idempotencyKey: `${key}-comment-${n + 1}` });
      comments++;
    }
  }
  return { tickets: DEMO_TICKETS.length, comments };
}
