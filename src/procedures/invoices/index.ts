import { invoicesGetAll } from './get-all';
import { invoicesGetById } from './get-by-id';
import { invoicesCreate } from './create';
import { invoicesUpdate } from './update';
import { invoicesSend } from './send';
import { invoicesMarkPaid } from './mark-paid';
import { invoicesVoid } from './void';
import { invoicesDelete } from './delete';
import { invoicesRestore } from './restore';
import { invoicesGetDeleted } from './get-deleted';

export const invoicesProcedures = [
  invoicesGetAll,
  invoicesGetById,
  invoicesCreate,
  invoicesUpdate,
  invoicesSend,
  invoicesMarkPaid,
  invoicesVoid,
  invoicesDelete,
  invoicesRestore,
  invoicesGetDeleted,
] as const;
