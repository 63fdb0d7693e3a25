/** The Idempotency-Key request header every write accepts (src/idempotency). */
export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the same key with the same body within 24 hours replays the first answer ' +
    '(status and body, with `Idempotent-Replayed: true`) without acting again; with another body or ' +
    'procedure it is a 422; while the first call with the key is still running, a 409. Keys belong ' +
    'to the API key that sent them. Validation failures (400) and server errors are not kept.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
  example: '6f1c2c1e-8f7a-4d0e-9f55-2b1f3a9c7d10',
};

/** On an answer replayed for an Idempotency-Key. */
export const IDEMPOTENT_REPLAYED_HEADER = {
  'Idempotent-Replayed': {
    description: '`true` when this answer is the stored answer to an earlier call with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
};
