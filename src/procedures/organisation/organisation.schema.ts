import { z } from 'zod';
import type { OrgTier } from '../../db/orgs';
import { idOutput, textOutput, timestampOutput } from '../shared/output-fields';

const ORG_TIERS = ['FREE', 'PRO', 'BUSINESS'] as const satisfies readonly OrgTier[];

/** The workspace as organisation.update answers it (src/db/orgs): tier and features are the operators' to set. */
export const organisationOutput = z
  .strictObject({
    id: idOutput('org'),
    name: textOutput('Acme Ltd'),
    tier: z.enum(ORG_TIERS).meta({ examples: ['BUSINESS'] }),
    features: z.array(z.string()).meta({ description: 'Features the operators turned on.', examples: [['DEVELOPER_API']] }),
    phoneRegion: z.string().meta({ description: 'ISO 3166 region national phone numbers are read in.', examples: ['GB'] }),
    createdAt: timestampOutput('2026-09-14T08:00:00.000Z'),
    updatedAt: timestampOutput('2026-11-26T09:30:00.000Z'),
  })
  .meta({ description: "The workspace's settings." });

export type OrganisationOutput = z.input<typeof organisationOutput>;
