import type { AnswerEvent, QueryResponse } from "@lore/shared";
import { AppError } from "../errors.ts";

/** Collects a finished event stream into the contract's QueryResponse. */
export async function collectResponse(events: AsyncGenerator<AnswerEvent>): Promise<QueryResponse> {
  let response = "";
  for await (const event of events) {
    switch (event.type) {
      case "start":
      case "sources":
        break;
      case "token":
        response += event.token;
        break;
      case "done": {
        const { type: _t, ...rest } = event;
        return { response, ...rest };
      }
      case "error":
        throw new AppError("upstream_error", event.message);
      default:
        event satisfies never;
    }
  }
  throw new AppError("internal_error", "The answer ended without a result");
}
