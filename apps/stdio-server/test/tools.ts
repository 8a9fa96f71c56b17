// The tools each pack publishes, in the order tools/list gives them; the read-only ones separately.
export const NOTES_TOOLS = ["get_note", "search_notes", "list_notes", "create_note", "update_note", "delete_note"];
export const TICKETS_TOOLS = [
  "search_tickets",
  "get_ticket",
  "create_ticket",
  "update_ticket_status",
  "bulk_update_ticket_status",
  "add_ticket_comment",
];
export const CRM_TOOLS = ["crm_search_accounts", "crm_get_account", "crm_create_account", "crm_bulk_update_tier"];
export const ALL_TOOLS = [...NOTES_TOOLS, ...TICKETS_TOOLS, ...CRM_TOOLS];
export const READ_ONLY_TOOLS = [
  "get_note",
  "search_notes",
  "list_notes",
  "search_tickets",
  "get_ticket",
  "crm_search_accounts",
  "crm_get_account",
];
