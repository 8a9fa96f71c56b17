import { openPacks } from "@toolshed/packs";

const seeded = await openPacks({ db: process.argv[2], packs: ["notes"], demo: true });
await seeded.close();
