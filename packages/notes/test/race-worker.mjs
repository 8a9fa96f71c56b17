// Run by processes.test.ts: opens the store on a shared file, waits for a common start time,
// then creates the same note with the same idempotency key a few times; prints the answers.
import { SqliteNotesStore } from "@toolshed/notes";

const [file, startAt, key] = process.argv.slice(2);
const store = SqliteNotesStore.open(file);
while (Date.now() < Number(startAt)) await new Promise((resolve) => setTimeout(resolve, 1));
const results = [];
for (let i = 0; i < 5; i++) {
  results.push(await store.createNote({ title: "race", body: "from many processes" }, { idempotencyKey: key }));
}
await store.close();
process.stdout.write(JSON.stringify(results));
