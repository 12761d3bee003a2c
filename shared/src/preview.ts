import { z } from "@hono/zod-openapi";

/** A short-lived, signed permission to show one agent's widget on this server's demo page. */
export const previewGrantSchema = z
  .object({
    url: z.string().openapi({
      description:
        "the demo page with the grant, a path on this server (under a proxy's path prefix, with it): `/?preview=…`",
    }),
    expiresAt: z
      .string()
      .openapi({ description: "ISO 8601; after it the page and its widget refuse the grant" }),
  })
  .openapi("PreviewGrant");
export type PreviewGrant = z.infer<typeof previewGrantSchema>;
