import type { ClientOptions, OpenAI } from "openai";

type Sdk = typeof import("openai");
let loading: Promise<Sdk> | undefined;
let loaded: Sdk | undefined;

/**
 * The OpenAI SDK, loaded when a model server is first called rather than at every start: most
 * servers (the built-in extractive model, the CLI) never call one, and its modules cost each start.
 */
function loadSdk(): Promise<Sdk> {
  loading ??= import("openai").then((sdk) => {
    loaded = sdk;
    return sdk;
  });
  return loading;
}

/** A client made on first use: `(await client()).chat.completions.create(…)`. */
export function lazyOpenAIClient(options: ClientOptions): () => Promise<OpenAI> {
  let client: Promise<OpenAI> | undefined;
  return () => {
    client ??= loadSdk().then((sdk) => new sdk.OpenAI(options));
    return client;
  };
}

/** The SDK once a client was made (only then can a call have thrown its errors), else null. */
export function loadedOpenAI(): Sdk | null {
  return loaded ?? null;
}
