import { z } from 'zod';
import { CALL_OUTCOMES, LEAD_STATUSES } from '../../domain/lead-status';
import { idOutput, timestampOutput } from '../shared/output-fields';

const count = (example: number) => z.number().int().min(0).meta({ examples: [example] });

/** A count for each key, every key present (an object, not a record: JSON Schema then names each property). */
function countsOf<const K extends string>(keys: readonly K[], examples: Record<K, number>) {
  const shape = Object.fromEntries(keys.map((key) => [key, count(examples[key])])) as { [P in K]: ReturnType<typeof count> };
  return z.strictObject(shape);
}

const BY_STATUS_EXAMPLE = { NOT_CONTACTED: 12, CONTACTED: 8, QUALIFIED: 5, CONVERTED: 3, LOST: 2, NO_ANSWER: 4, BUSY: 1, SWITCHED_OFF: 0, OUT_OF_SERVICE: 0, WRONG_NUMBER: 1 };
const BY_OUTCOME_EXAMPLE = { CONTACTED: 9, NO_ANSWER: 4, BUSY: 1, SWITCHED_OFF: 0, OUT_OF_SERVICE: 0, WRONG_NUMBER: 0 };

/** A count for every call outcome, zeros included. */
const byOutcomeOutput = countsOf(CALL_OUTCOMES, BY_OUTCOME_EXAMPLE).meta({ description: 'Calls per outcome, every outcome present.' });

/** dashboard.getLeadStats (lead-stats.ts): four blocks counted in one snapshot, so they agree with each other. */
export const leadStatsOutput = z
  .strictObject({
    range: z
      .strictObject({
        from: timestampOutput('2026-10-27T09:30:00.000Z'),
        to: timestampOutput('2026-11-26T09:30:00.000Z'),
        timeZone: z.string().meta({ description: 'The IANA zone the calls are counted per day in, as given.', examples: ['Europe/London'] }),
      })
      .meta({ description: 'The half-open range [from, to) counted, defaults resolved.' }),
    byStatus: countsOf(LEAD_STATUSES, BY_STATUS_EXAMPLE).meta({ description: 'Current leads per status, every status present.' }),
    byAssignee: z
      .array(
        z
          .strictObject({
            assignedToId: idOutput('mem').nullable().meta({ description: 'null: the unassigned leads.' }),
            count: count(21),
          })
          .meta({ description: "An assignee's current lead count." }),
      )
      .meta({ description: 'Most leads first; the unassigned bucket is always present (0 when none).' }),
    calls: z
      .strictObject({
        total: count(14),
        byOutcome: byOutcomeOutput,
        perDay: z
          .array(
            z
              .strictObject({
                day: z.string().meta({ description: 'A calendar day in timeZone, YYYY-MM-DD.', examples: ['2026-11-26'] }),
                total: count(3),
                byOutcome: byOutcomeOutput,
              })
              .meta({ description: 'Calls logged on one day.' }),
          )
          .meta({ description: 'Every day of the range in timeZone, oldest first, zeros included.' }),
      })
      .meta({ description: 'Calls logged in the range.' }),
    conversion: z
      .strictObject({
        created: count(20),
        converted: count(3),
        rate: z.number().min(0).meta({ description: 'converted / created to 4 decimals; 0 when nothing was created; above 1 when older leads converted.', examples: [0.15] }),
      })
      .meta({ description: 'Leads created and leads converted in the range.' }),
  })
  .meta({ description: 'Lead and call counts over a range.' });

export type LeadStatsOutput = z.input<typeof leadStatsOutput>;
