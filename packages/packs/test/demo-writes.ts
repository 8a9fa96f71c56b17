/** Every write tool of the three packs, with arguments that succeed on a writable demo database. */
export const DEMO_WRITES: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["create_note", { title: "new note", body: "x" }],
  ["update_note", { title: "groceries", body: "bread" }],
  ["delete_note", { title: "groceries" }],
  ["create_ticket", { title: "Printer on fire", body: "Smoke", priority: "high" }],
  ["update_ticket_status", { id: "T-1001", status: "closed", resolution: "Done" }],
  ["bulk_update_ticket_status", { ids: ["T-1002", "T-1003"], status: "closed", resolution: "Done" }],
  ["add_ticket_comment", { id: "T-1001", body: "Looking" }],
  ["crm_create_account", { name: "Brand New Co", tier: "startup", arr: 1 }],
  ["crm_bulk_update_tier", { account_ids: ["acc_1001"], new_tier: "startup" }],
];
