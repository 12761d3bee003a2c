import { it } from "vitest";
import { shopEntries } from "../fixtures/shop-corpus.ts";
import { startTestServer } from "../helpers/server.ts";
import { call, createAgent, readyTextSource, search } from "../ingestion/source-helpers.ts";
it("dbg", async () => {
  const server = await startTestServer();
  const token = (await server.login()).access;
  const shop = await readyTextSource(server, token, "Shop FAQ", shopEntries);
  const other = await readyTextSource(server, token, "Zoo", [{ title: "Penguins", content: "The zoo keeps twelve penguins; shipping penguins abroad is forbidden." }]);
  const agent = await createAgent(server, token, { dataSourceIds: [shop.id, other.id] });
  for (const q of ["Which payment methods do you accept?", "Tell me about shipping"]) {
    console.log(q, JSON.stringify((await search(server, token, agent.id, q)).results.map(r => [r.title, r.score.toFixed(3)])));
    console.log(JSON.stringify((await call(server, "POST", `/agents/${agent.id}/query/`, token, { message: q })).body).slice(0, 600));
  }
  console.log(JSON.stringify((await call(server, "POST", `/agents/${agent.id}/query/`, token, { message: "Tell me about shipping", dataSourceIds: [other.id] })).body).slice(0, 600));
  for (const url of ["http://127.0.0.1:9/", "http://nonexistent.invalid/"]) console.log(JSON.stringify((await call(server, "POST", "/data-sources/", token, { name: "U", type: "web", config: { url, mode: "page" } })).body).slice(0, 400));
  await server.close();
});
