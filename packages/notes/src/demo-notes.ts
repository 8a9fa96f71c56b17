import type { NewNote } from "./store.js";

/** Demo content: a small personal and work notebook. `groceries` and `todo` match the docs' examples. */
export const DEMO_NOTES: readonly NewNote[] = [
  { title: "groceries", body: "milk, eggs", tags: ["home", "shopping"] },
  { title: "todo", body: "call mom", tags: ["home"] },
  {
    title: "weekly review",
    body: "Every Friday at 4pm: clear the inbox, review the project list, pick three priorities for next week.",
    tags: ["work", "habits"],
  },
  {
    title: "book list",
    body: "- The Pragmatic Programmer\n- Designing Data-Intensive Applications\n- A Philosophy of Software Design\n- Thinking in Systems",
    tags: ["reading"],
  },
  {
    title: "pancake recipe",
    body: "2 cups flour, 2 eggs, 1.5 cups milk, 2 tbsp sugar, 1 tbsp baking powder, pinch of salt. Rest the batter 10 minutes.",
    tags: ["recipes", "home"],
  },
  {
    title: "tomato soup",
    body: "Roast 1 kg tomatoes with garlic and onion at 200C for 40 minutes, blend with stock, season with basil.",
    tags: ["recipes"],
  },
  {
    title: "standup notes 2025-03-03",
    body: "Ana: finishing the billing export. Ben: blocked on the staging database migration. Me: reviewing the search PR.",
    tags: ["work", "meetings"],
  },
  {
    title: "standup notes 2025-03-04",
    body: "Billing export shipped. Staging migration unblocked after the disk resize. Search PR needs a second review.",
    tags: ["work", "meetings"],
  },
  {
    title: "1:1 with Priya",
    body: "Career goals: lead the search project in Q3. Wants more code review from senior engineers. Follow up in two weeks.",
    tags: ["work", "meetings"],
  },
  {
    title: "project ideas",
    body: "A CLI that turns meeting notes into tasks. A plant-watering reminder. A tiny static site generator for recipes.",
    tags: ["ideas"],
  },
  {
    title: "trip to Lisbon",
    body: "Flights booked for May 12-19. Stay in Alfama. Visit Belem tower, ride tram 28, eat pasteis de nata at Manteigaria.",
    tags: ["travel"],
  },
  {
    title: "packing list",
    body: "passport, charger, adapter, rain jacket, walking shoes, sunscreen, headphones, a paperback",
    tags: ["travel"],
  },
  {
    title: "gift ideas",
    body: "Dad: a good pocket knife. Sam: climbing chalk bag. Mia: watercolor set. Budget about 40 euros each.",
    tags: ["home", "shopping"],
  },
  {
    title: "car maintenance",
    body: "Oil change every 10000 km; last one at 84200 km on 2025-01-15. Winter tyres off in April.",
    tags: ["home"],
  },
  {
    title: "passwords policy",
    body: "Use the team password manager. Rotate shared service keys every 90 days. Never paste secrets into chat.",
    tags: ["work", "security"],
  },
  {
    title: "incident 2025-02-11",
    body: "Search was down for 25 minutes after a bad index migration. Fix: roll back, add a migration dry run to CI.",
    tags: ["work", "postmortem"],
  },
  {
    title: "onboarding checklist",
    body: "Laptop, accounts, repository access, read the architecture doc, pair on one bug in the first week.",
    tags: ["work"],
  },
  {
    title: "running plan",
    body: "Mon rest, Tue 5 km easy, Thu intervals 6x400 m, Sat long run 12 km building to 18 km by June.",
    tags: ["health", "habits"],
  },
  {
    title: "doctor appointments",
    body: "Dentist on 2025-04-02 at 9:30. Annual checkup to book in September.",
    tags: ["health"],
  },
  {
    title: "garden",
    body: "Plant tomatoes and basil after the last frost. Water the herbs every two days in summer.",
    tags: ["home"],
  },
  {
    title: "quotes",
    body: '"Simple things should be simple, complex things should be possible." - Alan Kay',
    tags: ["reading"],
  },
  {
    title: "sql tips",
    body: "Use keyset pagination instead of OFFSET. EXPLAIN QUERY PLAN before adding an index. Keep transactions short.",
    tags: ["work", "learning"],
  },
  {
    title: "learning rust",
    body: "Finish the ownership chapter. Write a small grep clone. Read about lifetimes and the borrow checker.",
    tags: ["learning"],
  },
  {
    title: "budget 2025",
    body: "Rent 1200, groceries 400, transport 90, savings 500, fun 200. Review in June.",
    tags: ["home", "money"],
  },
  {
    title: "movie night",
    body: "Candidates: Spirited Away, Arrival, Paddington 2, The Grand Budapest Hotel. Snacks: popcorn and lemonade.",
    tags: ["home", "fun"],
  },
  {
    title: "birthday party",
    body: "Mia turns 7 on June 8. Invite 10 kids, book the park shelter, order a chocolate cake, buy balloons.",
    tags: ["home", "family"],
  },
  {
    title: "release checklist",
    body: "Changelog, version bump, run the full test suite, tag the release, publish, announce in the team channel.",
    tags: ["work"],
  },
  {
    title: "interview questions",
    body: "Tell me about a bug you are proud of finding. How do you decide what to test? Design a URL shortener.",
    tags: ["work", "hiring"],
  },
  {
    title: "home office",
    body: "Buy a monitor arm and a better desk lamp. Move the desk near the window. Cable tray under the desk.",
    tags: ["home", "shopping"],
  },
  {
    title: "café de flore",
    body: "Crème brûlée and a café crème; the naïve tourist corner seat by the window.",
    tags: ["travel", "food"],
  },
];
