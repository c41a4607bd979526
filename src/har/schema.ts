import { z } from 'zod';

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) as tapedeck reads it:
// the fields it uses are checked, everything else a writer adds is let through.

const nameValue = z.looseObject({ name: z.string(), value: z.string() });

export const harMessageSchema = z.looseObject({
  type: z.enum(['send', 'receive']),
  /** Seconds since the epoch, as Chrome and Playwright write it. */
  time: z.number(),
  opcode: z.number().int(),
  data: z.string(),
});

export const harEntrySchema = z.looseObject({
  startedDateTime: z.string().refine((s) => !Number.isNaN(Date.parse(s)), { error: 'expected an ISO 8601 date' }),
  time: z.number(),
  request: z.looseObject({
    method: z.string().min(1),
    url: z.string().min(1),
    headers: z.array(nameValue),
    postData: z.looseObject({ mimeType: z.string().optional(), text: z.string().optional(), _encoding: z.string().optional() }).optional(),
  }),
  response: z.looseObject({
    status: z.number().int(),
    statusText: z.string().optional(),
    headers: z.array(nameValue),
    content: z.looseObject({
      size: z.number().optional(),
      mimeType: z.string().optional(),
      text: z.string().optional(),
      encoding: z.string().optional(),
    }),
  }),
  timings: z.looseObject({ wait: z.number().optional(), send: z.number().optional(), receive: z.number().optional() }).optional(),
  _resourceType: z.string().optional(),
  _webSocketMessages: z.array(harMessageSchema).optional(),
  /** What a tapedeck export keeps that HAR has no field for: seqs, event timings and causes, ends, failures. */
  _tapedeck: z.unknown().optional(),
});

export const harSchema = z.looseObject({
  log: z.looseObject({
    version: z.string(),
    creator: z.looseObject({ name: z.string(), version: z.string() }),
    entries: z.array(harEntrySchema),
    _tapedeck: z.unknown().optional(),
  }),
});

export type Har = z.infer<typeof harSchema>;
export type HarEntry = z.infer<typeof harEntrySchema>;
export type HarMessage = z.infer<typeof harMessageSchema>;
