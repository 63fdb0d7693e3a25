import { z } from 'zod';
import { integerOutput, textOutput, timestampOutput } from '../shared/output-fields';

/** One request of a key's log (src/db/api-key-requests): what a request was, never what it carried. */
export const keyRequestOutput = z
  .strictObject({
    id: textOutput('req_0Ud2Kq7a3kTMd9VbX2qL').meta({ description: 'The entry\'s id; ids sort by time.' }),
    at: timestampOutput('2026-12-16T09:30:00.000Z').meta({ description: 'When the request arrived.' }),
    method: textOutput('POST'),
    procedure: textOutput('leads.create').meta({ description: 'The procedure called, or the REST route\'s pattern (`GET /api/v1/leads/{id}`); `unknown` for a name no procedure has.' }),
    status: integerOutput(201).meta({ description: 'The HTTP status answered; 499 when the client went away first.' }),
    errorCode: z.string().nullable().meta({ description: 'The error\'s code, as the answer\'s body named it; null for a success.', examples: ['FORBIDDEN'] }),
    durationMs: z.number().meta({ description: 'From the request\'s arrival to the end of its answer.', examples: [12.4] }),
    requestId: textOutput('5f0c6a52-3c1e-4f7e-9a55-0f6d2b1c7e11').meta({ description: 'The X-Request-Id answered, as the service\'s own logs name the request.' }),
    clientAddress: z.string().nullable().meta({ description: 'The caller\'s IP address (behind TRUST_PROXY: as the proxy forwarded it).', examples: ['203.0.113.7'] }),
  })
  .meta({ description: 'One request made with the key.' });

export const keyRequestsPageOutput = z
  .strictObject({
    requests: z.array(keyRequestOutput),
    nextCursor: z.string().nullable().meta({ description: 'Give it as `after` for the next (older) page; null on the last page.', examples: ['req_0Ud2Kq7a3kTMd9VbX2qL'] }),
  })
  .meta({ description: "A page of a key's request log, newest first." });
