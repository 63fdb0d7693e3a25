import { z } from 'zod';
import { idOutput, textOutput, timestampOutput } from '../shared/output-fields';

/** A key as the app lists it (key-listing.ts): never its secret, never its hash. */
export const apiKeyOutput = z
  .strictObject({
    id: idOutput('key'),
    name: textOutput('Zapier sync'),
    prefix: z.string().meta({ description: 'The first 12 characters of the secret, to tell keys apart.', examples: ['wsk_7Qm2XcLp'] }),
    scopes: z.array(z.string()).meta({ examples: [['leads.read', 'leads.create']] }),
    memberId: idOutput('mem').nullable().meta({ description: 'The member the key acts for, or null for a workspace key (as the app issues them).', examples: [null] }),
    createdAt: timestampOutput('2026-11-20T14:05:00.000Z'),
    expiresAt: timestampOutput('2027-11-20T00:00:00.000Z').nullable().meta({ description: 'Null: never expires.' }),
    revokedAt: timestampOutput('2026-12-01T11:00:00.000Z').nullable().meta({ description: 'Null while the key works.', examples: [null] }),
    lastUsedAt: timestampOutput('2026-11-26T09:30:00.000Z').nullable().meta({ description: 'Recorded at most once a minute.' }),
    previousSecret: z
      .strictObject({
        prefix: z.string().meta({ description: 'The first 12 characters of the replaced secret.', examples: ['wsk_3Hf8LqZw'] }),
        expiresAt: timestampOutput('2026-11-27T09:30:00.000Z').meta({ description: 'When the replaced secret stops working.' }),
      })
      .nullable()
      .meta({ description: 'The secret apiKeys.roll replaced, while it still works; null when there is none or its overlap has ended.', examples: [null] }),
  })
  .meta({ description: 'An API key of the workspace, without its secret.' });

export type ApiKeyOutput = z.input<typeof apiKeyOutput>;

/** apiKeys.create: the listing and the secret, answered this once. */
export const apiKeyCreatedOutput = apiKeyOutput
  .extend({
    lastUsedAt: apiKeyOutput.shape.lastUsedAt.meta({ examples: [null] }),
    key: z.string().meta({ description: 'The secret (wsk_ and 40 base62 characters): shown only here.', examples: ['wsk_7Qm2XcLpR4tVb9NzK3sH8dWfY6jA1eGuM01ElStO'] }),
  })
  .meta({ description: 'A new API key with its secret, shown only in this answer.' });

/** apiKeys.roll: the listing, the new secret (answered this once) and the end of the replaced one. */
export const apiKeyRolledOutput = apiKeyOutput
  .extend({
    key: apiKeyCreatedOutput.shape.key,
    previousSecretExpiresAt: timestampOutput('2026-11-27T09:30:00.000Z')
      .nullable()
      .meta({ description: 'Until when the replaced secret also works; null when it stopped at once (expirePreviousInSeconds 0).' }),
  })
  .meta({ description: 'A rolled API key with its new secret, shown only in this answer.' });

export const apiKeyListOutput = z.array(apiKeyOutput).meta({ description: "The workspace's API keys, newest first." });
