/**
 * The fields every free sample and summary of a paid feed opens with
 * (docs/feeds.md): when its data is from, how old that is against the
 * feed's limit, and whether there is any.
 */
import { z } from "zod";

/** How old the feed's data is, and whether that is past its limit. */
export const sampleFreshness = z.object({ age_s: z.number().int().nullable(), stale_after_s: z.number().int(), stale: z.boolean() });

export const sampleEnvelopeFields = {
  as_of_ms: z.number().int().nullable(),
  generated_at_ms: z.number().int(),
  freshness: sampleFreshness,
  present: z.boolean(),
  source_freshness_s: z.number().int().nullable(),
};
