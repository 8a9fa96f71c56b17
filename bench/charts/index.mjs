export { barChart } from "./bar.mjs";
