import { expect, it } from "vitest";
import { sortedNames } from "./context.js";

// Generated imports must already be in Biome's order, or a workspace pack fails lint at once.
it.each([
  [["weatherPack", "SqliteWeatherStore"], "SqliteWeatherStore, weatherPack"],
  [["SqlitePack3dModelsStore", "pack3dModelsPack"], "pack3dModelsPack, SqlitePack3dModelsStore"],
  [["notesPack", "NotesPackOptions"], "NotesPackOptions, notesPack"],
  [["Item", "CrmSyncStore"], "CrmSyncStore, Item"],
  [["WeatherStore", "Item"], "Item, WeatherStore"],
])("sorts %j as Biome does", (names, sorted) => {
  expect(sortedNames(...names)).toBe(sorted);
});
