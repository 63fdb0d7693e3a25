import { invoicesGetAll } from './get-all';
import { invoicesGetById } from './get-by-id';
import { invoicesCreate } from './create';
import { invoicesUpdate } from './update';
import { invoicesSend } from './send';
import { invoicesMarkPaid } from './mark-paid';
import { invoicesVoid } from './void';
import { invoicesDelete } from './delete';

export const invoicesProcedures = [
  invoicesGetAll,
  invoicesGetById,
  invoicesCreate,
  invoicesUpdate,
  invoicesSend,
  invoicesMarkPaid,
  invoicesVoid,
  invoicesDelete,
] as const;
