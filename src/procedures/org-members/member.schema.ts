import { z } from 'zod';
import { emailOutput, idOutput, textOutput, timestampOutput } from '../shared/output-fields';

/** A member as orgMembers.getAll and orgMembers.getById answer it (src/db/members). */
export const memberOutput = z
  .strictObject({
    id: idOutput('mem'),
    name: textOutput('Ana Souza'),
    email: emailOutput,
    permissions: z.array(z.string()).meta({ description: "What the member may do in the app; DEVELOPER opens the developer page.", examples: [['DEVELOPER']] }),
    createdAt: timestampOutput('2026-09-14T08:00:00.000Z'),
  })
  .meta({ description: 'A member of the workspace.' });

export type MemberOutput = z.input<typeof memberOutput>;
