import { z } from 'zod';
import { INVOICE_STATUSES } from '../../domain/invoice-status';
import { deletedOutput, idOutput, integerOutput, textOutput, timestampOutput } from '../shared/output-fields';

/** A line as answered: money in integer minor units, `total` = quantity x unitPrice, computed by the server. */
export const invoiceItemOutput = z
  .strictObject({
    id: idOutput('line'),
    description: textOutput('Website redesign, phase 1'),
    quantity: z.number().int().min(1).meta({ examples: [2] }),
    unitPrice: z.number().int().min(0).meta({ description: 'Minor units (150000 in GBP is 1,500.00).', examples: [150000] }),
    total: z.number().int().min(0).meta({ description: 'quantity x unitPrice, in minor units.', examples: [300000] }),
  })
  .meta({ description: 'One line of an invoice.' });

/** An invoice as every invoices procedure answers it (src/db/invoices), and as invoice events carry it. */
export const invoiceOutput = z
  .strictObject({
    id: idOutput('inv'),
    clientId: idOutput('cli'),
    currency: z.string().meta({ description: 'ISO 4217.', examples: ['GBP'] }),
    status: z.enum(INVOICE_STATUSES).meta({ examples: ['PAID'] }),
    dueDate: timestampOutput('2030-01-31T00:00:00.000Z').meta({ description: 'A calendar day: the Date at UTC midnight of that day.' }),
    sentAt: timestampOutput('2026-11-26T09:30:00.000Z').nullable().meta({ description: 'Set by invoices.send; null while DRAFT.' }),
    paidAt: timestampOutput('2026-12-10T15:00:00.000Z').nullable().meta({ description: 'Set by invoices.markPaid.' }),
    // The example is null where the invoice's example (a PAID one) has none, so the composed sample is consistent.
    voidedAt: timestampOutput('2026-12-01T11:00:00.000Z').nullable().meta({ description: 'Set by invoices.void.', examples: [null] }),
    items: z.array(invoiceItemOutput).min(1),
    total: integerOutput(300000).min(0).meta({ description: 'Sum of the line totals, in minor units.' }),
    createdAt: timestampOutput('2026-11-20T14:05:00.000Z'),
    updatedAt: timestampOutput('2026-12-10T15:00:00.000Z'),
  })
  .meta({ description: 'An invoice with its line items and totals in integer minor units.' });

export type InvoiceOutput = z.input<typeof invoiceOutput>;

/** What invoices.delete answers. */
export const invoiceDeletedOutput = deletedOutput('inv', 'invoice');
