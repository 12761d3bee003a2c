import { z } from "@hono/zod-openapi";
import { answerConfidenceSchema, answerOutcomeSchema, citationSchema } from "./answers.ts";
import { idSchema } from "./common.ts";

// The OpenAI-compatible routes under an agent's OpenAI base URL (`/agents/{agentId}/`): chat
// completions, responses and models. Fields OpenAI defines and Lore has no use for are ignored.

const MAX_CONTENT = 100_000;

/**
 * One content part. Text parts (`text`, `input_text`, `output_text`) are joined; any other type
 * (images, audio, files) is refused with 400 naming the part.
 */
export const openAiContentPartSchema = z
  .looseObject({
    type: z.string().openapi({ description: "`text`, `input_text` or `output_text`; others are refused" }),
    text: z.string().max(MAX_CONTENT).optional(),
  })
  .openapi("OpenAIContentPart");
export type OpenAIContentPart = z.infer<typeof openAiContentPartSchema>;

const contentSchema = z.union([z.string().max(MAX_CONTENT), z.array(openAiContentPartSchema).max(100)]);

const toolCallSchema = z.looseObject({
  id: z.string().optional(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string().optional() }).optional(),
});

/** A chat message: `developer` is read as `system`; tool calls and tool results are kept as text, never executed. */
export const chatCompletionMessageSchema = z
  .discriminatedUnion("role", [
    z.looseObject({ role: z.literal("system"), content: contentSchema }),
    z.looseObject({ role: z.literal("developer"), content: contentSchema }),
    z.looseObject({ role: z.literal("user"), content: contentSchema }),
    z.looseObject({
      role: z.literal("assistant"),
      content: contentSchema.nullable().optional(),
      tool_calls: z.array(toolCallSchema).max(100).optional(),
    }),
    z.looseObject({ role: z.literal("tool"), content: contentSchema, tool_call_id: z.string().optional() }),
  ])
  .openapi("ChatCompletionMessage");
export type ChatCompletionMessage = z.infer<typeof chatCompletionMessageSchema>;

export const chatCompletionRequestSchema = z
  .looseObject({
    model: z.string().optional().openapi({ description: "ignored: the agent's model answers" }),
    messages: z.array(chatCompletionMessageSchema).min(1).max(200),
    stream: z.boolean().nullable().optional(),
    stream_options: z
      .looseObject({ include_usage: z.boolean().optional() })
      .nullable()
      .optional()
      .openapi({ description: "`include_usage: true`: a last chunk with `choices: []` and the usage" }),
  })
  .openapi("ChatCompletionRequest");
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

const usageSchema = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int().openapi({ description: "the answer's `metadata.tokensUsed`" }),
});

export const chatCompletionResponseSchema = z
  .object({
    id: z.string(),
    object: z.literal("chat.completion"),
    created: z.number().int(),
    model: z.string().openapi({ description: "the agent's configured model" }),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({ role: z.literal("assistant"), content: z.string(), refusal: z.null() }),
        logprobs: z.null(),
        finish_reason: z.string(),
      }),
    ),
    usage: usageSchema,
    sources: z.array(citationSchema).openapi({ description: "Lore extra: the citations of the answer" }),
    conversationId: idSchema.openapi({ description: "Lore extra: where the exchange was stored" }),
    outcome: answerOutcomeSchema.openapi({ description: "Lore extra: answered, uncertain or fallback" }),
    confidence: answerConfidenceSchema.openapi({
      description: "Lore extra: the answer's calibrated confidence",
    }),
  })
  .openapi("ChatCompletion");
export type ChatCompletionResponse = z.infer<typeof chatCompletionResponseSchema>;

const streamErrorSchema = z.object({
  message: z.string(),
  type: z.string().openapi({ description: "OpenAI's error type (`server_error`, …)" }),
  code: z.string().openapi({ description: "Lore's error code" }),
  param: z.null(),
});

/** One `data:` line of a streamed chat completion (the stream ends with `data: [DONE]`, or after an error chunk). */
export const chatCompletionChunkSchema = z
  .union([
    z.object({
      id: z.string(),
      object: z.literal("chat.completion.chunk"),
      created: z.number().int(),
      model: z.string(),
      choices: z
        .array(
          z.object({
            index: z.number().int(),
            delta: z.object({ role: z.literal("assistant").optional(), content: z.string().optional() }),
            logprobs: z.null(),
            finish_reason: z.string().nullable(),
          }),
        )
        .openapi({ description: "empty on the usage chunk" }),
      conversationId: idSchema.optional().openapi({ description: "on the first chunk" }),
      sources: z.array(citationSchema).optional().openapi({ description: "on the finish chunk" }),
      outcome: answerOutcomeSchema.optional().openapi({ description: "on the finish chunk" }),
      confidence: answerConfidenceSchema.optional().openapi({ description: "on the finish chunk" }),
      usage: usageSchema
        .optional()
        .openapi({ description: "with `stream_options.include_usage`: on a last chunk with `choices: []`" }),
    }),
    z.object({ error: streamErrorSchema }),
  ])
  .openapi("ChatCompletionChunk");
export type ChatCompletionChunk = z.infer<typeof chatCompletionChunkSchema>;

/** `GET …/models/`: the agent is the one model. */
export const openAiModelSchema = z
  .object({
    id: idSchema.openapi({ description: "the agent's id" }),
    object: z.literal("model"),
    created: z.number().int().openapi({ description: "the agent's creation, Unix seconds" }),
    owned_by: z.string().openapi({ description: "the agent's workspace id" }),
    name: z.string().openapi({ description: "Lore extra: the agent's name" }),
  })
  .openapi("OpenAIModel");
export type OpenAIModel = z.infer<typeof openAiModelSchema>;

export const openAiModelListSchema = z
  .object({ object: z.literal("list"), data: z.array(openAiModelSchema) })
  .openapi("OpenAIModelList");

/** One input item of `POST …/responses/`: a message, or a function call or its output (kept as text). */
export const responseInputItemSchema = z
  .union([
    z.looseObject({
      type: z.literal("message").optional(),
      role: z.enum(["system", "developer", "user", "assistant"]),
      content: contentSchema,
    }),
    z.looseObject({
      type: z.literal("function_call"),
      name: z.string(),
      arguments: z.string().max(MAX_CONTENT).optional(),
      call_id: z.string().optional(),
    }),
    z.looseObject({
      type: z.literal("function_call_output"),
      output: contentSchema,
      call_id: z.string().optional(),
    }),
  ])
  .openapi("ResponseInputItem");
export type ResponseInputItem = z.infer<typeof responseInputItemSchema>;

export const responseRequestSchema = z
  .looseObject({
    model: z.string().optional().openapi({ description: "ignored: the agent's model answers" }),
    input: z.union([z.string().min(1).max(MAX_CONTENT), z.array(responseInputItemSchema).min(1).max(200)]),
    instructions: z
      .string()
      .max(MAX_CONTENT)
      .nullable()
      .optional()
      .openapi({ description: "accepted and ignored, like system messages: the agent's instructions apply" }),
    stream: z.boolean().nullable().optional(),
    tools: z
      .array(z.looseObject({ type: z.string() }))
      .max(0, "tools are not supported: Lore answers from its sources")
      .optional()
      .openapi({ description: "must be empty or absent (400 otherwise)" }),
    previous_response_id: z
      .null()
      .optional()
      .openapi({ description: "responses are not stored: send the conversation in `input`" }),
  })
  .openapi("ResponseRequest");
export type ResponseRequest = z.infer<typeof responseRequestSchema>;

/** A list Lore always sends empty (annotations, logprobs, tools). */
const emptyList = z.array(z.object({})).max(0).openapi({ description: "always empty" });

const responseUsageSchema = z.object({
  input_tokens: z.number().int(),
  input_tokens_details: z.object({ cached_tokens: z.number().int() }),
  output_tokens: z.number().int(),
  output_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
  total_tokens: z.number().int(),
});

const outputTextSchema = z.object({
  type: z.literal("output_text"),
  text: z.string(),
  annotations: emptyList,
  logprobs: emptyList,
});

const outputMessageSchema = z.object({
  type: z.literal("message"),
  id: z.string(),
  status: z.enum(["in_progress", "completed", "incomplete"]),
  role: z.literal("assistant"),
  content: z.array(outputTextSchema),
});

export const responseObjectSchema = z
  .object({
    id: z.string(),
    object: z.literal("response"),
    created_at: z.number().int(),
    status: z.enum(["in_progress", "completed", "failed"]),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    incomplete_details: z.null(),
    instructions: z.string().nullable(),
    model: z.string().openapi({ description: "the agent's configured model" }),
    output: z.array(outputMessageSchema),
    parallel_tool_calls: z.boolean(),
    previous_response_id: z.null(),
    store: z.boolean(),
    tool_choice: z.literal("none"),
    tools: emptyList,
    text: z.object({ format: z.object({ type: z.literal("text") }) }),
    truncation: z.literal("disabled"),
    usage: responseUsageSchema.nullable().openapi({ description: "null until the response is completed" }),
    metadata: z.record(z.string(), z.string()),
    sources: z
      .array(citationSchema)
      .openapi({ description: "Lore extra: the citations of the answer (empty until completed)" }),
    conversationId: idSchema.openapi({ description: "Lore extra: where the exchange was stored" }),
  })
  .openapi("Response");
export type ResponseObject = z.infer<typeof responseObjectSchema>;

const sequenced = { sequence_number: z.number().int() };
const textAt = { item_id: z.string(), output_index: z.literal(0), content_index: z.literal(0) };

/** One event of a streamed response (`event: <type>` and `data: {json}`), in OpenAI's order. */
export const responseStreamEventSchema = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("response.created"), ...sequenced, response: responseObjectSchema }),
    z.object({ type: z.literal("response.in_progress"), ...sequenced, response: responseObjectSchema }),
    z.object({
      type: z.literal("response.output_item.added"),
      ...sequenced,
      output_index: z.literal(0),
      item: outputMessageSchema,
    }),
    z.object({
      type: z.literal("response.content_part.added"),
      ...sequenced,
      ...textAt,
      part: outputTextSchema,
    }),
    z.object({
      type: z.literal("response.output_text.delta"),
      ...sequenced,
      ...textAt,
      delta: z.string(),
      logprobs: emptyList,
    }),
    z.object({
      type: z.literal("response.output_text.done"),
      ...sequenced,
      ...textAt,
      text: z.string(),
      logprobs: emptyList,
    }),
    z.object({
      type: z.literal("response.content_part.done"),
      ...sequenced,
      ...textAt,
      part: outputTextSchema,
    }),
    z.object({
      type: z.literal("response.output_item.done"),
      ...sequenced,
      output_index: z.literal(0),
      item: outputMessageSchema,
    }),
    z.object({ type: z.literal("response.completed"), ...sequenced, response: responseObjectSchema }),
    z.object({
      type: z.literal("error"),
      ...sequenced,
      code: z.string().openapi({ description: "Lore's error code" }),
      message: z.string(),
      param: z.null(),
    }),
  ])
  .openapi("ResponseStreamEvent");
export type ResponseStreamEvent = z.infer<typeof responseStreamEventSchema>;
