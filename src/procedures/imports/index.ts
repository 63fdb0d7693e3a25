import { importsGetById } from './get-by-id';
import { importsGetAll } from './get-all';
import { importsCancel } from './cancel';
import { importsOnProgress } from './on-progress';

// The upload itself is REST only (POST /api/v1/imports: the file is the body), src/http/imports-rest.
export const importsProcedures = [importsGetById, importsGetAll, importsCancel] as const;
export const importsSubscriptions = [importsOnProgress] as const;
